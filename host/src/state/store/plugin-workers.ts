// Worker tiers in both store dialects: which plugin namespaces run in a sandbox worker of their
// own (the operator's choice or a quarantine). One row per namespace, replaced whole.
// Invariants: a reason read back is one of the two known values (fail-closed: anything else is
// AIRLOCK_STORE_INVALID_INPUT); details are plain JSON.
import type { DatabaseSync } from "node:sqlite";
import { storeError } from "./errors.ts";
import type { Db } from "./postgres/db.ts";
import type { PluginWorkerRecord, Store } from "./types.ts";

export type PluginWorkersPart = Pick<Store, "putPluginWorker" | "deletePluginWorker" | "listPluginWorkers">;

type Row = Record<string, unknown>;

function reasonOf(value: unknown): PluginWorkerRecord["reason"] {
  if (value === "operator" || value === "quarantine") return value;
  throw storeError("AIRLOCK_STORE_INVALID_INPUT", `unknown plugin worker reason ${JSON.stringify(value)}`);
}

function recordOf(r: Row, details: unknown): PluginWorkerRecord {
  return {
    namespace: String(r.namespace),
    reason: reasonOf(r.reason),
    details: (details ?? null) as PluginWorkerRecord["details"],
    updatedAt: String(r.updated_at),
  };
}

/** SQLite (node:sqlite, synchronous). */
export function sqlitePluginWorkers(db: DatabaseSync): PluginWorkersPart {
  return {
    async putPluginWorker(record) {
      reasonOf(record.reason);
      db.prepare(
        `INSERT INTO plugin_workers (namespace, reason, details, updated_at) VALUES (?, ?, ?, ?)
         ON CONFLICT (namespace) DO UPDATE SET reason = excluded.reason, details = excluded.details,
           updated_at = excluded.updated_at`,
      ).run(
        record.namespace,
        record.reason,
        record.details === null ? null : JSON.stringify(record.details),
        record.updatedAt,
      );
    },
    async deletePluginWorker(namespace) {
      db.prepare("DELETE FROM plugin_workers WHERE namespace = ?").run(namespace);
    },
    async listPluginWorkers() {
      const rows = db.prepare("SELECT * FROM plugin_workers ORDER BY namespace").all() as Row[];
      return rows.map((r) => recordOf(r, r.details === null ? null : JSON.parse(String(r.details))));
    },
  };
}

/** PostgreSQL (the store's Db). */
export function postgresPluginWorkers(db: Db): PluginWorkersPart {
  return {
    async putPluginWorker(record) {
      reasonOf(record.reason);
      await db.exec(
        `INSERT INTO plugin_workers (namespace, reason, details, updated_at) VALUES ($1, $2, $3, $4)
         ON CONFLICT (namespace) DO UPDATE SET reason = EXCLUDED.reason, details = EXCLUDED.details,
           updated_at = EXCLUDED.updated_at`,
        [
          record.namespace,
          record.reason,
          record.details === null ? null : JSON.stringify(record.details),
          record.updatedAt,
        ],
      );
    },
    async deletePluginWorker(namespace) {
      await db.exec("DELETE FROM plugin_workers WHERE namespace = $1", [namespace]);
    },
    async listPluginWorkers() {
      const rows = await db.query('SELECT * FROM plugin_workers ORDER BY namespace COLLATE "C"');
      return rows.map((r) => recordOf(r, r.details));
    },
  };
}
