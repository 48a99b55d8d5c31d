// SQLite: the append-only audit trail in its own file (audit-file.ts), queried newest first with
// id-based paging. Appends go to the file's writer thread (audit-thread.ts) as rows of
// `auditParams` (audit-rows.ts; audit-commit.ts writes them); `insert` is for the host's own
// writes (journal replay); queries read through the host's connection to the file.
// Invariants: details are sanitised before insert (binary values dropped); rows are never
// updated; filters combine with AND; a time filter picks its plan by the window's size
// (`wideWindow`), never its answer.
import type { DatabaseSync, SQLInputValue } from "node:sqlite";
import { normalizeAuditQuery } from "../shared.ts";
import type { AuditInput, Store } from "../types.ts";
import { INSERT_AUDIT } from "./audit-commit.ts";
import { auditParams, auditRecord, type Row } from "./audit-rows.ts";
import type { AuditThread } from "./audit-thread.ts";

/** A time window holding more entries than this is walked newest first, not read by time and sorted. */
const NARROW_WINDOW = 2000;

/**
 * Whether the window `since`..`until` holds more than NARROW_WINDOW entries (counted on the at
 * index, at most NARROW_WINDOW + 1 of them). SQLite keeps no statistics, and given a time term it
 * reads every entry of the window by the at index and sorts them by id: for a wide window (an
 * export of a month, `until` alone) that is most of the trail for each page of 500 (bench row 13:
 * an export with a time filter read the window once per page). A narrow window is read that way
 * (a few thousand entries, sorted); a wide one is walked newest first by id, the time terms a
 * filter, which stops at the page's last entry.
 */
function wideWindow(db: DatabaseSync, since: string | undefined, until: string | undefined): boolean {
  if (since === undefined && until === undefined) return false;
  const where = [since === undefined ? "" : "at >= ?", until === undefined ? "" : "at <= ?"].filter(Boolean);
  const params = [since, until].filter((v): v is string => v !== undefined);
  const { n } = db
    .prepare(`SELECT COUNT(*) AS n FROM (SELECT 1 FROM audit WHERE ${where.join(" AND ")} LIMIT ?)`)
    .get(...params, NARROW_WINDOW + 1) as { n: number };
  return n > NARROW_WINDOW;
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
      // `+at`: the time terms filter the newest-first walk instead of choosing the at index
      const at = wideWindow(db, q.since, q.until) ? "+at" : "at";
      add(`${at} >= ?`, q.since);
      add(`${at} <= ?`, q.until);
      add("id < ?", q.before);
      const sql = `SELECT * FROM audit ${where.length ? `WHERE ${where.join(" AND ")}` : ""} ORDER BY id DESC LIMIT ?`;
      return (db.prepare(sql).all(...params, q.limit) as Row[]).map(auditRecord);
    },
  };
}
