// SQLite: the statements that write the audit trail and the one transaction a batch commits in,
// shared by the writer thread (audit-writer-thread.ts) and the host's connection to audit.db
// (while the thread starts, and the journal replay). This module and what it imports load no
// store code beyond tx.ts, so the thread that imports it starts in the time a worker takes.
// Invariant: a batch and its journal mark commit together, or not at all.
import type { DatabaseSync, SQLInputValue } from "node:sqlite";
import type { AuditJournalMark } from "../types.ts";
import { immediate } from "./tx.ts";

/** One row (parameters: audit-rows.ts auditParams). */
export const INSERT_AUDIT = `INSERT INTO audit (at, agent, plugin, tool, conversation_id, kind, action, allowed, success, error, duration_ms, details)
   VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;

/** Records that a journal is committed up to a sequence number (parameters: journal, seq). */
const RECORD_MARK =
  "INSERT INTO audit_journal_marks (journal, seq) VALUES (?, ?) ON CONFLICT (journal) DO UPDATE SET seq = excluded.seq";

/** Commits `rows` and, when given, the journal mark in one transaction. */
export function commitAuditBatch(
  db: DatabaseSync,
  rows: readonly SQLInputValue[][],
  mark?: AuditJournalMark,
): void {
  immediate(db, () => {
    const insert = db.prepare(INSERT_AUDIT);
    for (const row of rows) insert.run(...row);
    if (mark !== undefined) db.prepare(RECORD_MARK).run(mark.journal, mark.seq);
  });
}
