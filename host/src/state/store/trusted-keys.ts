// Publisher keys trusted per plugin namespace, in both store dialects: one row per (namespace,
// key id) holding the key's PEM, shared by every host on the store (engine/install/namespace-trust.ts
// decides what is kept; this only stores it).
// Invariants: putting a key that is already kept keeps its first row (added_at unchanged);
// deleting answers whether a row went; listings are ordered by namespace, then key id.
import type { DatabaseSync } from "node:sqlite";
import type { Db } from "./postgres/db.ts";
import type { Store, TrustedKeyRecord } from "./types.ts";

export type TrustedKeysPart = Pick<Store, "putTrustedKey" | "listTrustedKeys" | "deleteTrustedKey">;

type Row = Record<string, unknown>;

const recordOf = (r: Row): TrustedKeyRecord => ({
  namespace: String(r.namespace),
  keyId: String(r.key_id),
  pem: String(r.pem),
  addedAt: String(r.added_at),
});

/** SQLite (node:sqlite, synchronous). */
export function sqliteTrustedKeys(db: DatabaseSync): TrustedKeysPart {
  return {
    async putTrustedKey(key) {
      db.prepare(
        `INSERT INTO trusted_keys (namespace, key_id, pem, added_at) VALUES (?, ?, ?, ?)
         ON CONFLICT (namespace, key_id) DO NOTHING`,
      ).run(key.namespace, key.keyId, key.pem, key.addedAt);
    },
    async listTrustedKeys(namespace) {
      const rows = (
        namespace === undefined
          ? db.prepare("SELECT * FROM trusted_keys ORDER BY namespace, key_id").all()
          : db.prepare("SELECT * FROM trusted_keys WHERE namespace = ? ORDER BY key_id").all(namespace)
      ) as Row[];
      return rows.map(recordOf);
    },
    async deleteTrustedKey(namespace, keyId) {
      const { changes } = db
        .prepare("DELETE FROM trusted_keys WHERE namespace = ? AND key_id = ?")
        .run(namespace, keyId);
      return Number(changes) > 0;
    },
  };
}

/** PostgreSQL (the store's Db). */
export function postgresTrustedKeys(db: Db): TrustedKeysPart {
  return {
    async putTrustedKey(key) {
      await db.exec(
        `INSERT INTO trusted_keys (namespace, key_id, pem, added_at) VALUES ($1, $2, $3, $4)
         ON CONFLICT (namespace, key_id) DO NOTHING`,
        [key.namespace, key.keyId, key.pem, key.addedAt],
      );
    },
    async listTrustedKeys(namespace) {
      const rows =
        namespace === undefined
          ? await db.query('SELECT * FROM trusted_keys ORDER BY namespace COLLATE "C", key_id COLLATE "C"')
          : await db.query('SELECT * FROM trusted_keys WHERE namespace = $1 ORDER BY key_id COLLATE "C"', [
              namespace,
            ]);
      return rows.map(recordOf);
    },
    async deleteTrustedKey(namespace, keyId) {
      return (
        (await db.exec("DELETE FROM trusted_keys WHERE namespace = $1 AND key_id = $2", [namespace, keyId])) >
        0
      );
    },
  };
}
