// PostgreSQL: secrets (ciphertext only), per-conversation state, and artifacts.
// Invariants: a state set takes a transaction advisory lock on its (agent, conversation,
// namespace) before summing and writing, and every artifact put takes the one artifact lock,
// so replicas racing on the same caps never overshoot them. takeArtifact is a single
// DELETE … RETURNING filtered by binding and expiry: row locking makes one racer win and
// every other one see nothing, and a wrong binding matches no row and so consumes nothing.

import { secretFromRow, toMillis } from "../shared.ts";
import type { DataPart } from "../sqlite/data.ts";
import type { ArtifactRecord } from "../types.ts";
import { ARTIFACT_LOCK, type Db, type Row } from "./db.ts";

const artifact = (r: Row): ArtifactRecord => ({
  handle: String(r.handle),
  agent: String(r.agent),
  conversationId: String(r.conversation_id),
  filename: String(r.filename),
  mime: String(r.mime),
  bytes: new Uint8Array(r.bytes as Buffer),
  expiresAt: toMillis(r.expires_at),
});

export function postgresData(db: Db): DataPart {
  return {
    async putSecret(s) {
      await db.exec(
        `INSERT INTO secrets (agent, key, ciphertext, updated_at) VALUES ($1, $2, $3, $4)
         ON CONFLICT (agent, key) DO UPDATE SET ciphertext = EXCLUDED.ciphertext, updated_at = EXCLUDED.updated_at`,
        [s.agent, s.key, s.ciphertext, s.updatedAt],
      );
    },
    async getSecret(agent, key) {
      const [r] = await db.query("SELECT * FROM secrets WHERE agent = $1 AND key = $2", [agent, key]);
      return r === undefined ? null : secretFromRow(r);
    },
    async listSecrets(agent) {
      return (await db.query('SELECT * FROM secrets WHERE agent = $1 ORDER BY key COLLATE "C"', [agent])).map(
        secretFromRow,
      );
    },
    async deleteSecret(agent, key) {
      return (await db.exec("DELETE FROM secrets WHERE agent = $1 AND key = $2", [agent, key])) > 0;
    },

    async getState(agent, conv, ns, key) {
      const [r] = await db.query(
        "SELECT json FROM conversation_state WHERE agent = $1 AND conversation_id = $2 AND namespace = $3 AND key = $4",
        [agent, conv, ns, key],
      );
      return r === undefined ? null : String(r.json);
    },
    async setState(agent, conv, ns, key, json, maxTotalBytes) {
      const size = Buffer.byteLength(key) + Buffer.byteLength(json);
      return db.tx(async (q) => {
        await q("SELECT pg_advisory_xact_lock(hashtext(current_schema()), hashtext($1))", [
          JSON.stringify(["state", agent, conv, ns]),
        ]);
        const { rows } = await q(
          `SELECT COALESCE(SUM(size), 0) AS total FROM conversation_state
           WHERE agent = $1 AND conversation_id = $2 AND namespace = $3 AND key <> $4`,
          [agent, conv, ns, key],
        );
        if (Number(rows[0]?.total) + size > maxTotalBytes) return false;
        await q(
          `INSERT INTO conversation_state (agent, conversation_id, namespace, key, json, size)
           VALUES ($1, $2, $3, $4, $5, $6)
           ON CONFLICT (agent, conversation_id, namespace, key) DO UPDATE SET json = EXCLUDED.json, size = EXCLUDED.size`,
          [agent, conv, ns, key, json, size],
        );
        return true;
      });
    },
    async deleteState(agent, conv, ns, key) {
      await db.exec(
        "DELETE FROM conversation_state WHERE agent = $1 AND conversation_id = $2 AND namespace = $3 AND key = $4",
        [agent, conv, ns, key],
      );
    },
    async listStateKeys(agent, conv, ns) {
      const rows = await db.query(
        `SELECT key FROM conversation_state WHERE agent = $1 AND conversation_id = $2 AND namespace = $3
         ORDER BY key COLLATE "C"`,
        [agent, conv, ns],
      );
      return rows.map((r) => String(r.key));
    },

    async putArtifact(a, caps, now) {
      const size = a.bytes.byteLength;
      if (size > caps.maxBytesPerArtifact) return { ok: false, reason: "too_large" };
      return db.tx(async (q) => {
        await q("SELECT pg_advisory_xact_lock(hashtext(current_schema()), $1)", [ARTIFACT_LOCK]);
        await q("DELETE FROM artifacts WHERE expires_at <= $1", [now]);
        const b = (
          await q(
            "SELECT COUNT(*) AS n, COALESCE(SUM(size), 0) AS bytes FROM artifacts WHERE agent = $1 AND conversation_id = $2",
            [a.agent, a.conversationId],
          )
        ).rows[0]!;
        if (Number(b.n) + 1 > caps.maxCountPerBinding || Number(b.bytes) + size > caps.maxBytesPerBinding) {
          return { ok: false, reason: "binding_full" } as const;
        }
        const g = (await q("SELECT COUNT(*) AS n, COALESCE(SUM(size), 0) AS bytes FROM artifacts")).rows[0]!;
        if (Number(g.n) + 1 > caps.maxCountGlobal || Number(g.bytes) + size > caps.maxBytesGlobal) {
          return { ok: false, reason: "global_full" } as const;
        }
        await q(
          `INSERT INTO artifacts (handle, agent, conversation_id, filename, mime, bytes, size, expires_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
          [a.handle, a.agent, a.conversationId, a.filename, a.mime, Buffer.from(a.bytes), size, a.expiresAt],
        );
        return { ok: true } as const;
      });
    },
    async takeArtifact(handle, agent, conv, now) {
      const [r] = await db.query(
        `DELETE FROM artifacts WHERE handle = $1 AND agent = $2 AND conversation_id = $3 AND expires_at > $4
         RETURNING *`,
        [handle, agent, conv, now],
      );
      return r === undefined ? null : artifact(r);
    },
    sweepArtifacts: (now) => db.exec("DELETE FROM artifacts WHERE expires_at <= $1", [now]),
  };
}
