// SQLite: the append-only audit trail in its own file (audit-file.ts), queried newest first with
// id-based paging. Appends go to the file's writer thread (audit-thread.ts) as rows of
// `auditParams` (audit-commit.ts writes them); `insert` is for the host's own writes (journal
// replay); queries read through the host's connection to the file.
// Invariants: details are sanitised before insert (binary values dropped); rows are never
// updated; filters combine with AND.
import type { DatabaseSync, SQLInputValue } from "node:sqlite";
import { auditRow, normalizeAuditQuery } from "../shared.ts";
import type { AuditInput, AuditRecord, Store } from "../types.ts";
import { INSERT_AUDIT } from "./audit-commit.ts";
import type { AuditThread } from "./audit-thread.ts";

type Row = Record<string, unknown>;

const nullableBool = (v: unknown): boolean | null => (v === null ? null : Number(v) !== 0);

export function auditRecord(r: Row): AuditRecord {
  return {
    id: Number(r.id),
    at: String(r.at),
    agent: r.agent === null ? null : String(r.agent),
    plugin: r.plugin === null ? null : String(r.plugin),
    tool: r.tool === null ? null : String(r.tool),
    conversationId: r.conversation_id === null ? null : String(r.conversation_id),
    kind: String(r.kind) as AuditRecord["kind"],
    action: String(r.action),
    allowed: Boolean(nullableBool(r.allowed)),
    success: nullableBool(r.success),
    error: r.error === null ? null : String(r.error),
    durationMs: r.duration_ms === null ? null : Number(r.duration_ms),
    details: r.details === null ? null : (JSON.parse(String(r.details)) as Record<string, unknown>),
  };
}

/**
 * One entry's INSERT_AUDIT parameters: time canonicalised (a bad one throws
 * AIRLOCK_STORE_INVALID_INPUT), details sanitised and serialised.
 */
export function auditParams(e: AuditInput): SQLInputValue[] {
  const { at, details } = auditRow(e);
  return [
    at,
    e.agent,
    e.plugin,
    e.tool,
    e.conversationId,
    e.kind,
    e.action,
    e.allowed ? 1 : 0,
    e.success === null ? null : e.success ? 1 : 0,
    e.error,
    e.durationMs,
    details,
  ];
}

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
