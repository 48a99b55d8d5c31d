// SQLite: the authorization server's clients, grants and hashed secrets (store/authz-types.ts).
// useSecret is one conditional UPDATE (used_at IS NULL AND expires_at > now), so a code or a
// refresh token is redeemed once even across processes sharing the file. The row mappers are
// shared with the PostgreSQL dialect.
import type { DatabaseSync } from "node:sqlite";
import type {
  AuthClientRecord,
  AuthGrantRecord,
  AuthSecretKind,
  AuthSecretRecord,
  AuthServerStore,
} from "../authz-types.ts";

type Row = Record<string, unknown>;

export const authClientFromRow = (r: Row): AuthClientRecord => ({
  id: String(r.id),
  name: String(r.name),
  redirectUris: JSON.parse(String(r.redirect_uris)) as string[],
  createdAt: String(r.created_at),
});

export const authGrantFromRow = (r: Row): AuthGrantRecord => ({
  id: String(r.id),
  clientId: String(r.client_id),
  clientName: String(r.client_name),
  agent: String(r.agent),
  resource: String(r.resource),
  createdAt: String(r.created_at),
  revokedAt: r.revoked_at === null || r.revoked_at === undefined ? null : String(r.revoked_at),
});

export const authSecretFromRow = (r: Row): AuthSecretRecord => ({
  hash: String(r.hash),
  kind: String(r.kind) as AuthSecretKind,
  grantId: String(r.grant_id),
  data:
    r.data === null || r.data === undefined ? null : (JSON.parse(String(r.data)) as Record<string, string>),
  expiresAt: Number(r.expires_at),
  usedAt: r.used_at === null || r.used_at === undefined ? null : Number(r.used_at),
});

export function sqliteAuthServer(db: DatabaseSync): { authServer: AuthServerStore } {
  const authServer: AuthServerStore = {
    async putClient(c) {
      db.prepare("INSERT INTO authz_clients (id, name, redirect_uris, created_at) VALUES (?, ?, ?, ?)").run(
        c.id,
        c.name,
        JSON.stringify(c.redirectUris),
        c.createdAt,
      );
    },
    async getClient(id) {
      const row = db.prepare("SELECT * FROM authz_clients WHERE id = ?").get(id) as Row | undefined;
      return row === undefined ? null : authClientFromRow(row);
    },
    async countClients() {
      const row = db.prepare("SELECT count(*) AS n FROM authz_clients").get() as { n: number };
      return Number(row.n);
    },
    async putGrant(g) {
      db.prepare(
        `INSERT INTO authz_grants (id, client_id, client_name, agent, resource, created_at, revoked_at)
         VALUES (?, ?, ?, ?, ?, ?, ?)`,
      ).run(g.id, g.clientId, g.clientName, g.agent, g.resource, g.createdAt, g.revokedAt);
    },
    async getGrant(id) {
      const row = db.prepare("SELECT * FROM authz_grants WHERE id = ?").get(id) as Row | undefined;
      return row === undefined ? null : authGrantFromRow(row);
    },
    async listGrants(agent) {
      const rows = db
        .prepare("SELECT * FROM authz_grants WHERE agent = ? ORDER BY created_at DESC, id DESC")
        .all(agent) as Row[];
      return rows.map(authGrantFromRow);
    },
    async revokeGrant(id, at) {
      const result = db
        .prepare("UPDATE authz_grants SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL")
        .run(at, id);
      return Number(result.changes) === 1;
    },
    async putSecret(s) {
      db.prepare(
        "INSERT INTO authz_secrets (hash, kind, grant_id, data, expires_at, used_at) VALUES (?, ?, ?, ?, ?, ?)",
      ).run(
        s.hash,
        s.kind,
        s.grantId,
        s.data === null ? null : JSON.stringify(s.data),
        s.expiresAt,
        s.usedAt,
      );
    },
    async findSecret(hash, now) {
      const row = db
        .prepare("SELECT * FROM authz_secrets WHERE hash = ? AND expires_at > ?")
        .get(hash, now) as Row | undefined;
      return row === undefined ? null : authSecretFromRow(row);
    },
    async useSecret(hash, now) {
      const result = db
        .prepare("UPDATE authz_secrets SET used_at = ? WHERE hash = ? AND used_at IS NULL AND expires_at > ?")
        .run(now, hash, now);
      return Number(result.changes) === 1;
    },
    async pruneSecrets(now) {
      return Number(db.prepare("DELETE FROM authz_secrets WHERE expires_at <= ?").run(now).changes);
    },
  };
  return { authServer };
}
