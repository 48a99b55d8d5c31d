// Row ↔ TaskRow for both dialects (SQLite keeps JSON as text and times as integers; pg hands
// jsonb back parsed and bigint as strings).
import type { TaskRow, TaskStatus } from "./task-types.ts";

type Row = Record<string, unknown>;

const json = (value: unknown): Record<string, unknown> | null => {
  if (value === null || value === undefined) return null;
  const parsed = typeof value === "string" ? (JSON.parse(value) as unknown) : value;
  return parsed !== null && typeof parsed === "object" ? (parsed as Record<string, unknown>) : null;
};
const num = (value: unknown): number | null => (value === null || value === undefined ? null : Number(value));
const str = (value: unknown): string | null => (value === null || value === undefined ? null : String(value));

export function taskFromRow(r: Row): TaskRow {
  return {
    id: String(r.id),
    agent: String(r.agent),
    toolName: String(r.tool_name),
    conversationId: String(r.conversation_id),
    input: json(r.input) ?? {},
    options: json(r.options) ?? {},
    status: String(r.status) as TaskStatus,
    statusMessage: str(r.status_message),
    replica: str(r.replica),
    outcome: json(r.outcome),
    errorCode: str(r.error_code),
    errorMessage: str(r.error_message),
    createdAt: Number(r.created_at),
    updatedAt: Number(r.updated_at),
    beatAt: num(r.beat_at),
    ttlMs: Number(r.ttl_ms),
    expiresAt: Number(r.expires_at),
    resumable: r.resumable === true || Number(r.resumable) === 1,
    attempts: Number(r.attempts ?? 0),
  };
}

/** The columns every task query selects. */
export const TASK_COLUMNS =
  "id, agent, tool_name, conversation_id, input, options, status, status_message, replica, outcome, error_code, error_message, created_at, updated_at, beat_at, ttl_ms, expires_at, resumable, attempts";
