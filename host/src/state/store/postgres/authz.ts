// PostgreSQL: the authorization server's clients, grants and hashed secrets
// (store/authz-types.ts). useSecret is one conditional UPDATE (row locking makes one replica
// win a replayed code or refresh token); the row mappers are the SQLite dialect's.
import type { AuthServerStore } from "../authz-types.ts";
import { authClientFromRow, authGrantFromRow, authSecretFromRow } from "../sqlite/authz.ts";
import type { Db } from "./db.ts";

export function postgresAuthServer(db: Db): { authServer: AuthServerStore } {
  const authServer: AuthServerStore = {
    async putClient(c) {
      await db.exec(
        "INSERT INTO authz_clients (id, name, redirect_uris, created_at) VALUES ($1, $2, $3, $4)",
        [c.id, c.name, JSON.stringify(c.redirectUris), c.createdAt],
      );
    },
    async getClient(id) {
      const [row] = await db.query("SELECT * FROM authz_clients WHERE id = $1", [id]);
      return row === undefined ? null : authClientFromRow(row);
    },
    async countClients() {
      const [row] = await db.query("SELECT count(*) AS n FROM authz_clients", []);
      return Number(row?.n ?? 0);
    },
    async putGrant(g) {
      await db.exec(
        `INSERT INTO authz_grants (id, client_id, client_name, agent, resource, created_at, revoked_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7)`,
        [g.id, g.clientId, g.clientName, g.agent, g.resource, g.createdAt, g.revokedAt],
      );
    },
    async getGrant(id) {
      const [row] = await db.query("SELECT * FROM authz_grants WHERE id = $1", [id]);
      return row === undefined ? null : authGrantFromRow(row);
    },
    async listGrants(agent) {
      const rows = await db.query(
        'SELECT * FROM authz_grants WHERE agent = $1 ORDER BY created_at COLLATE "C" DESC, id COLLATE "C" DESC',
        [agent],
      );
      return rows.map(authGrantFromRow);
    },
    async revokeGrant(id, at) {
      return (
        (await db.exec("UPDATE authz_grants SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL", [
          at,
          id,
        ])) === 1
      );
    },
    async putSecret(s) {
      await db.exec(
        "INSERT INTO authz_secrets (hash, kind, grant_id, data, expires_at, used_at) VALUES ($1, $2, $3, $4, $5, $6)",
        [s.hash, s.kind, s.grantId, s.data === null ? null : JSON.stringify(s.data), s.expiresAt, s.usedAt],
      );
    },
    async findSecret(hash, now) {
      const [row] = await db.query("SELECT * FROM authz_secrets WHERE hash = $1 AND expires_at > $2", [
        hash,
        now,
      ]);
      return row === undefined ? null : authSecretFromRow(row);
    },
    async useSecret(hash, now) {
      return (
        (await db.exec(
          "UPDATE authz_secrets SET used_at = $1 WHERE hash = $2 AND used_at IS NULL AND expires_at > $1",
          [now, hash],
        )) === 1
      );
    },
    async pruneSecrets(now) {
      return db.exec("DELETE FROM authz_secrets WHERE expires_at <= $1", [now]);
    },
  };
  return { authServer };
}
