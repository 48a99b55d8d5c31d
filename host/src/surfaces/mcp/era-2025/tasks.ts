// The 2025-11-25 tasks utility on the host's task service: the server advertises `tasks`
// (list, cancel, tools/call requests); a client asks for a task with a `task` param on
// tools/call, then reads it with `tasks/get`, `tasks/result`, `tasks/list`, `tasks/cancel`.
// The status notification a task's end raises goes out on the session's GET stream
// (list-changes.ts, with legacyTask below).
// Invariants: a `task` param on a tool that does not declare longRunning is refused with
// AIRLOCK_TASK_NOT_SUPPORTED (never silently run in-request); every method is answered from the
// store; a task of another agent is "not found"; tasks/result of a failed task throws the task's
// JSON-RPC error (its code in `data.code`).
import { ProtocolError, ProtocolErrorCode, type Server } from "@modelcontextprotocol/server";
import { z } from "zod";
import type { AirlockHost, ModelTool } from "../../../contracts/host.ts";
import type { TaskView } from "../../../contracts/tasks.ts";
import { toCallToolResult } from "../mapping.ts";
import { notFound, taskError, taskFields, taskIdParams } from "../tasks.ts";

const RELATED_TASK = "io.modelcontextprotocol/related-task";

/** What the server advertises for tasks. */
export const legacyTaskCapabilities = () => ({
  tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } },
});

/** The client sent `task` (refused for a tool that is not long-running), with its TTL. */
export function legacyTaskRequest(
  params: Record<string, unknown>,
  tool: ModelTool,
): { ttlMs?: number } | undefined {
  const task = params.task;
  if (task === undefined || task === null || typeof task !== "object") return undefined;
  if (tool.longRunning !== true) {
    throw new ProtocolError(
      ProtocolErrorCode.MethodNotFound,
      `${tool.wireName} does not support task execution (it does not declare longRunning); call it without "task"`,
      { code: "AIRLOCK_TASK_NOT_SUPPORTED" },
    );
  }
  const ttl = (task as { ttl?: unknown }).ttl;
  return typeof ttl === "number" && Number.isFinite(ttl) && ttl > 0 ? { ttlMs: Math.floor(ttl) } : {};
}

/** 2025-11-25 `Task`. */
export function legacyTask(v: TaskView): Record<string, unknown> {
  return {
    ...taskFields(v),
    ttl: v.ttlMs,
    pollInterval: v.pollIntervalMs,
  };
}

/** The tools/call answer once the task is recorded (`content: []` satisfies the SDK's result check; clients read `task`). */
export function legacyTaskResult(v: TaskView): Record<string, unknown> {
  return { content: [], task: legacyTask(v) };
}

/** Registers tasks/get, tasks/result, tasks/list and tasks/cancel on one agent's server. */
export function serveLegacyTasks(server: Server, host: AirlockHost, agent: string): void {
  const find = async (id: string) => {
    const v = await host.tasks.get(agent, id);
    if (v === null) throw notFound(id);
    return v;
  };
  // The SDK's typed surface leaves task methods out (no runtime for them): register through a view
  // of `setRequestHandler` that takes their names, with explicit param schemas.
  const on = server.setRequestHandler.bind(server) as unknown as (
    method: string,
    schemas: { params: typeof taskIdParams },
    handler: (params: Record<string, unknown>, ctx: { mcpReq: { signal: AbortSignal } }) => Promise<unknown>,
  ) => void;
  on("tasks/get", { params: taskIdParams }, async (p) => legacyTask(await find(String(p.taskId))));
  on("tasks/result", { params: taskIdParams }, async (p, ctx) => {
    const id = String(p.taskId);
    const v = await host.tasks.wait(agent, id, ctx.mcpReq.signal);
    if (v === null) throw notFound(id);
    if (v.status === "completed" && v.outcome !== undefined) {
      const result = toCallToolResult(v.outcome);
      result._meta = { ...result._meta, [RELATED_TASK]: { taskId: id } };
      return result;
    }
    if (v.status === "cancelled") {
      throw new ProtocolError(ProtocolErrorCode.InvalidRequest, `task ${id} was cancelled`, {
        code: "AIRLOCK_TASK_CANCELLED",
      });
    }
    if (v.status === "working")
      throw new ProtocolError(ProtocolErrorCode.InternalError, "the wait was cut short");
    const e = taskError(v);
    throw new ProtocolError(e.code, e.message, e.data);
  });
  on(
    "tasks/list",
    { params: z.looseObject({ cursor: z.string().max(1000).optional() }) as never },
    async (p) => {
      const cursor = typeof p.cursor === "string" ? p.cursor : undefined;
      const page = await host.tasks.list(agent, cursor).catch((error: unknown) => {
        if ((error as { code?: unknown }).code === "invalid_cursor")
          throw new ProtocolError(ProtocolErrorCode.InvalidParams, "invalid cursor: list again without one");
        throw error;
      });
      return {
        tasks: page.tasks.map(legacyTask),
        ...(page.nextCursor === undefined ? {} : { nextCursor: page.nextCursor }),
      };
    },
  );
  on("tasks/cancel", { params: taskIdParams }, async (p) => {
    const id = String(p.taskId);
    const answer = await host.tasks.cancel(agent, id);
    if (answer === null) throw notFound(id);
    if (!answer.cancelled) {
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `task ${id} is already ${answer.task.status}`,
        {
          code: "AIRLOCK_TASK_TERMINAL",
        },
      );
    }
    return legacyTask(answer.task);
  });
}
