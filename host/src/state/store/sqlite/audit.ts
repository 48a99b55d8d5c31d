// SQLite: the append-only audit trail in its own file (audit-file.ts), queried newest first with
// id-based paging. Appends go to the file's writer thread (audit-thread.ts) as rows of
// `auditParams` (audit-rows.ts; audit-commit.ts writes them); `insert` is for the host's own
// writes (journal replay); queries read through the host's connection to the file.
// Invariants: details are sanitised before insert (binary values dropped); rows are never
// updated; filters combine with AND.
import type { DatabaseSync, SQLInputValue } from "node:sqlite";
import { normalizeAuditQuery } from "../shared.ts";
import type { AuditInput, Store } from "../types.ts";
import { INSERT_AUDIT } from "./audit-commit.ts";
import { auditParams, auditRecord, type Row } from "./audit-rows.ts";
import type { AuditThread } from "./audit-thread.ts";

export function insert(db: DatabaseSync, e: AuditInput): void {
  db.prepare(INSERT_AUDIT).run(...auditParams(e));
}

/** `db`: the host's connection to the audit file (reads); `thread`: its writer. */
export function sqliteAudit(
  db: DatabaseSync,
  thread: AuditThread,
): Pick<Store, "appendAudit" | "queryAudit"> & Required<Pick<Store, "appendAuditBatch">> {
  return {
    appendAudit: (e) => thread.write([e]),
    // One transaction (one commit) for the whole batch and its journal mark; any failure rolls
    // all of it back.
    appendAuditBatch: (entries, mark) => thread.write(entries, mark),
    async queryAudit(query) {
      const q = normalizeAuditQuery(query);
      const where: string[] = [];
      const params: SQLInputValue[] = [];
      const add = (sql: string, v: SQLInputValue | undefined) => {
        if (v === undefined) return;
        where.push(sql);
        params.push(v);
      };
      add("agent = ?", q.agent);
      add("plugin = ?", q.plugin);
      add("tool = ?", q.tool);
      add("kind = ?", q.kind);
      add("at >= ?", q.since);
      add("at <= ?", q.until);
      add("id < ?", q.before);
      const sql = `SELECT * FROM audit ${where.length ? `WHERE ${where.join(" AND ")}` : ""} ORDER BY id DESC LIMIT ?`;
      return (db.prepare(sql).all(...params, q.limit) as Row[]).map(auditRecord);
    },
  };
}
