// Long-running calls over MCP, on the host's task service (AirlockHost.tasks, host/src/engine/tasks/):
// what both eras' task glue shares. The 2025-11-25 tasks utility (a `task` param on tools/call,
// `tasks/get`, `tasks/result`, `tasks/list`, `tasks/cancel`) is in era-2025/tasks.ts; the
// 2026-07-28 tasks extension `io.modelcontextprotocol/tasks` (a `resultType: "task"` answer to
// tools/call, `tasks/get` with the result inline, `tasks/cancel`) in era-2026/tasks.ts.
// SDK v2 2.4.0 has the wire schemas of both but no task runtime, so the handlers are ours.
// Invariants: a task is created only for a tool that declares longRunning, and (2026) only for
// a request whose client capabilities name the extension; every task method is answered from the
// store, so any replica answers it; a task of another agent is "not found", exactly like an
// unknown id; a failed task's JSON-RPC error carries its AIRLOCK_* code in `data.code`.
import { ProtocolError, ProtocolErrorCode } from "@modelcontextprotocol/server";
import { z } from "zod";
import type { TaskStartOptions, TaskView } from "../../contracts/tasks.ts";

const iso = (ms: number) => new Date(ms).toISOString();

/** The fields a `Task` has in both eras, in wire order (each era adds its TTL and poll interval). */
export function taskFields(v: TaskView): Record<string, unknown> {
  return {
    taskId: v.id,
    status: v.status,
    ...(v.statusMessage === undefined ? {} : { statusMessage: v.statusMessage }),
    createdAt: iso(v.createdAt),
    lastUpdatedAt: iso(v.updatedAt),
  };
}

/** The JSON-RPC error of a failed task (also what tasks/result throws for it). */
export function taskError(v: TaskView): { code: number; message: string; data: { code: string } } {
  const code = v.error?.code ?? "AIRLOCK_TASK_FAILED";
  return {
    code: ProtocolErrorCode.InternalError,
    message: v.error?.message ?? "the task failed",
    data: { code },
  };
}

/** A task id this agent does not own (or nobody does): the same answer either way. */
export const notFound = (id: unknown) =>
  new ProtocolError(ProtocolErrorCode.InvalidParams, `no task ${JSON.stringify(id)} belongs to this agent`, {
    code: "AIRLOCK_TASK_NOT_FOUND",
  });

/** The params of tasks/get, tasks/result and tasks/cancel. */
export const taskIdParams = z.looseObject({ taskId: z.string().min(1).max(200) });

/** The task's start options from what the server knows of the call. */
export type { TaskStartOptions };
