// PostgreSQL: the append-only audit trail, queried newest first with id-based paging.
// Invariants: details are sanitised before insert (binary values dropped); rows are never
// updated; filters combine with AND.
import { auditRow, normalizeAuditQuery } from "../shared.ts";
import type { AuditInput, AuditRecord, Store } from "../types.ts";
import type { Db, Row } from "./db.ts";

const record = (r: Row): AuditRecord => ({
  id: Number(r.id),
  at: String(r.at),
  agent: r.agent === null ? null : String(r.agent),
  plugin: r.plugin === null ? null : String(r.plugin),
  tool: r.tool === null ? null : String(r.tool),
  conversationId: r.conversation_id === null ? null : String(r.conversation_id),
  kind: String(r.kind) as AuditRecord["kind"],
  action: String(r.action),
  allowed: r.allowed === true,
  success: r.success === null ? null : r.success === true,
  error: r.error === null ? null : String(r.error),
  durationMs: r.duration_ms === null ? null : Number(r.duration_ms),
  details: (r.details ?? null) as Record<string, unknown> | null,
});

const COLUMNS = 12;

function values(e: AuditInput): unknown[] {
  const { at, details } = auditRow(e);
  return [
    at,
    e.agent,
    e.plugin,
    e.tool,
    e.conversationId,
    e.kind,
    e.action,
    e.allowed,
    e.success,
    e.error,
    e.durationMs,
    details,
  ];
}

export function postgresAudit(
  db: Db,
): Pick<Store, "appendAudit" | "queryAudit"> & Required<Pick<Store, "appendAuditBatch">> {
  // One multi-row INSERT: one round trip, atomic (all rows or none).
  const appendAuditBatch = async (entries: readonly AuditInput[]): Promise<void> => {
    if (entries.length === 0) return;
    const params = entries.flatMap(values);
    const rows = entries.map(
      (_, r) => `(${Array.from({ length: COLUMNS }, (_, c) => `$${r * COLUMNS + c + 1}`).join(", ")})`,
    );
    await db.exec(
      `INSERT INTO audit (at, agent, plugin, tool, conversation_id, kind, action, allowed, success, error, duration_ms, details)
         VALUES ${rows.join(", ")}`,
      params,
    );
  };
  return {
    appendAuditBatch,
    async appendAudit(e) {
      await appendAuditBatch([e]);
    },
    async queryAudit(query) {
      const q = normalizeAuditQuery(query);
      const where: string[] = [];
      const params: unknown[] = [];
      const add = (column: string, op: string, v: unknown) => {
        if (v === undefined) return;
        params.push(v);
        where.push(`${column} ${op} $${params.length}`);
      };
      add("agent", "=", q.agent);
      add("plugin", "=", q.plugin);
      add("tool", "=", q.tool);
      add("kind", "=", q.kind);
      add("at", ">=", q.since);
      add("at", "<=", q.until);
      add("id", "<", q.before);
      params.push(q.limit);
      const sql = `SELECT * FROM audit ${where.length ? `WHERE ${where.join(" AND ")}` : ""} ORDER BY id DESC LIMIT $${params.length}`;
      return (await db.query(sql, params)).map(record);
    },
  };
}
