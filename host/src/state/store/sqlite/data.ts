// SQLite: secrets (ciphertext only), per-conversation state, and artifacts.
// Invariants: state and artifact caps are checked and the row written in one BEGIN IMMEDIATE
// transaction, so no interleaving (in this process or another sharing the file) can overshoot
// a cap; takeArtifact is a single DELETE … RETURNING filtered by binding and expiry, so a
// handle is handed out at most once and a wrong binding never consumes it.
import type { DatabaseSync } from "node:sqlite";
import { secretFromRow } from "../shared.ts";
import type { ArtifactRecord, Store } from "../types.ts";
import { immediate } from "./tx.ts";

type Row = Record<string, unknown>;

export type DataPart = Pick<
  Store,
  | "putSecret"
  | "getSecret"
  | "listSecrets"
  | "deleteSecret"
  | "getState"
  | "setState"
  | "deleteState"
  | "listStateKeys"
  | "putArtifact"
  | "takeArtifact"
  | "sweepArtifacts"
>;

const artifact = (r: Row): ArtifactRecord => ({
  handle: String(r.handle),
  agent: String(r.agent),
  conversationId: String(r.conversation_id),
  filename: String(r.filename),
  mime: String(r.mime),
  bytes: new Uint8Array(r.bytes as Uint8Array),
  expiresAt: Number(r.expires_at),
});

export function sqliteData(db: DatabaseSync): DataPart {
  return {
    async putSecret(s) {
      db.prepare(
        `INSERT INTO secrets (agent, key, ciphertext, updated_at) VALUES (?, ?, ?, ?)
         ON CONFLICT (agent, key) DO UPDATE SET ciphertext = excluded.ciphertext, updated_at = excluded.updated_at`,
      ).run(s.agent, s.key, s.ciphertext, s.updatedAt);
    },
    async getSecret(agent, key) {
      const r = db.prepare("SELECT * FROM secrets WHERE agent = ? AND key = ?").get(agent, key) as
        | Row
        | undefined;
      return r === undefined ? null : secretFromRow(r);
    },
    async listSecrets(agent) {
      return (db.prepare("SELECT * FROM secrets WHERE agent = ? ORDER BY key").all(agent) as Row[]).map(
        secretFromRow,
      );
    },
    async deleteSecret(agent, key) {
      return (
        Number(db.prepare("DELETE FROM secrets WHERE agent = ? AND key = ?").run(agent, key).changes) > 0
      );
    },

    async getState(agent, conv, ns, key) {
      const r = db
        .prepare(
          "SELECT json FROM conversation_state WHERE agent = ? AND conversation_id = ? AND namespace = ? AND key = ?",
        )
        .get(agent, conv, ns, key) as Row | undefined;
      return r === undefined ? null : String(r.json);
    },
    async setState(agent, conv, ns, key, json, maxTotalBytes) {
      const size = Buffer.byteLength(key) + Buffer.byteLength(json);
      return immediate(db, () => {
        const r = db
          .prepare(
            `SELECT COALESCE(SUM(size), 0) AS total FROM conversation_state
             WHERE agent = ? AND conversation_id = ? AND namespace = ? AND key <> ?`,
          )
          .get(agent, conv, ns, key) as Row;
        if (Number(r.total) + size > maxTotalBytes) return false;
        db.prepare(
          `INSERT INTO conversation_state (agent, conversation_id, namespace, key, json, size) VALUES (?, ?, ?, ?, ?, ?)
           ON CONFLICT (agent, conversation_id, namespace, key) DO UPDATE SET json = excluded.json, size = excluded.size`,
        ).run(agent, conv, ns, key, json, size);
        return true;
      });
    },
    async deleteState(agent, conv, ns, key) {
      db.prepare(
        "DELETE FROM conversation_state WHERE agent = ? AND conversation_id = ? AND namespace = ? AND key = ?",
      ).run(agent, conv, ns, key);
    },
    async listStateKeys(agent, conv, ns) {
      const rows = db
        .prepare(
          "SELECT key FROM conversation_state WHERE agent = ? AND conversation_id = ? AND namespace = ? ORDER BY key",
        )
        .all(agent, conv, ns);
      return (rows as Row[]).map((r) => String(r.key));
    },

    async putArtifact(a, caps, now) {
      const size = a.bytes.byteLength;
      if (size > caps.maxBytesPerArtifact) return { ok: false, reason: "too_large" };
      return immediate(db, () => {
        db.prepare("DELETE FROM artifacts WHERE expires_at <= ?").run(now);
        const b = db
          .prepare(
            "SELECT COUNT(*) AS n, COALESCE(SUM(size), 0) AS bytes FROM artifacts WHERE agent = ? AND conversation_id = ?",
          )
          .get(a.agent, a.conversationId) as Row;
        if (Number(b.n) + 1 > caps.maxCountPerBinding || Number(b.bytes) + size > caps.maxBytesPerBinding) {
          return { ok: false, reason: "binding_full" } as const;
        }
        const g = db
          .prepare("SELECT COUNT(*) AS n, COALESCE(SUM(size), 0) AS bytes FROM artifacts")
          .get() as Row;
        if (Number(g.n) + 1 > caps.maxCountGlobal || Number(g.bytes) + size > caps.maxBytesGlobal) {
          return { ok: false, reason: "global_full" } as const;
        }
        db.prepare(
          `INSERT INTO artifacts (handle, agent, conversation_id, filename, mime, bytes, size, expires_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
        ).run(a.handle, a.agent, a.conversationId, a.filename, a.mime, a.bytes, size, a.expiresAt);
        return { ok: true } as const;
      });
    },
    async takeArtifact(handle, agent, conv, now) {
      const r = db
        .prepare(
          `DELETE FROM artifacts WHERE handle = ? AND agent = ? AND conversation_id = ? AND expires_at > ?
           RETURNING *`,
        )
        .get(handle, agent, conv, now) as Row | undefined;
      return r === undefined ? null : artifact(r);
    },
    async sweepArtifacts(now) {
      return Number(db.prepare("DELETE FROM artifacts WHERE expires_at <= ?").run(now).changes);
    },
  };
}
