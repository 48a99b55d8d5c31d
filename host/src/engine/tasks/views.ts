// A task row as the library API shows it (TaskView), and the opaque cursor of tasks/list pages.
import type { ToolCallOutcome } from "../../contracts/host.ts";
import type { TaskRow } from "../../state/store/task-types.ts";
import type { TaskView } from "./types.ts";

export function taskView(row: TaskRow, pollIntervalMs: number): TaskView {
  const out: TaskView = {
    id: row.id,
    agent: row.agent,
    toolName: row.toolName,
    status: row.status,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    ttlMs: row.ttlMs,
    pollIntervalMs,
  };
  if (row.statusMessage !== null) out.statusMessage = row.statusMessage;
  if (row.status === "completed" && row.outcome !== null)
    out.outcome = row.outcome as unknown as ToolCallOutcome;
  if (row.status === "failed") {
    out.error = {
      code: row.errorCode ?? "AIRLOCK_TASK_FAILED",
      message: row.errorMessage ?? "the task failed",
    };
  }
  return out;
}

export function encodeTaskCursor(row: { createdAt: number; id: string }): string {
  return Buffer.from(JSON.stringify([row.createdAt, row.id])).toString("base64url");
}
export function decodeTaskCursor(cursor: string): { createdAt: number; id: string } | null {
  try {
    const [createdAt, id] = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as unknown[];
    return typeof createdAt === "number" && typeof id === "string" ? { createdAt, id } : null;
  } catch {
    return null; // not one of ours: the caller answers "invalid cursor"
  }
}

export function splitId(toolName: string): [string | null, string | null] {
  const at = toolName.indexOf(":");
  return at < 0 ? [null, toolName] : [toolName.slice(0, at), toolName.slice(at + 1)];
}
