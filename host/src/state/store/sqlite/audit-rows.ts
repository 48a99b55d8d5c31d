// SQLite: the audit table's row mapping, both ways — an entry to the parameters of INSERT_AUDIT
// (audit-commit.ts), and a selected row back to an AuditRecord. Shared by the queries and the
// host's own inserts (audit.ts) and by the writer thread's host side (audit-thread.ts), which
// sends rows already turned into parameters.
// Invariants: time is canonicalised (a bad one throws AIRLOCK_STORE_INVALID_INPUT) and details
// are sanitised (binary values dropped) before a row is written; a NULL column reads back as null.
import type { SQLInputValue } from "node:sqlite";
import { auditRow } from "../shared.ts";
import type { AuditInput, AuditRecord } from "../types.ts";

export type Row = Record<string, unknown>;

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
