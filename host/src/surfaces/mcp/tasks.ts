// Long-running calls over MCP, on the host's task service (AirlockHost.tasks, host/src/engine/tasks/):
// the 2025-11-25 tasks utility (a `task` param on tools/call, `tasks/get`, `tasks/result`,
// `tasks/list`, `tasks/cancel`) and the 2026-07-28 tasks extension `io.modelcontextprotocol/tasks`
// (a `resultType: "task"` answer to tools/call, `tasks/get` with the result inline, `tasks/cancel`).
// SDK v2 2.4.0 has the wire schemas of both but no task runtime, so the handlers are here.
// Invariants: a task is created only for a tool that declares longRunning, and (2026) only for
// a request whose client capabilities name the extension; every task method is answered from the
// store, so any replica answers it; a task of another agent is "not found", exactly like an
// unknown id; a failed task's JSON-RPC error carries its AIRLOCK_* code in `data.code`.
import { ProtocolError, ProtocolErrorCode, type Server } from "@modelcontextprotocol/server";
import { z } from "zod";
import type { AirlockHost, ModelTool } from "../../contracts/host.ts";
import type { TaskStartOptions, TaskView } from "../../engine/tasks/types.ts";
import { toCallToolResult } from "./mapping.ts";

export const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";
const RELATED_TASK = "io.modelcontextprotocol/related-task";
const CLIENT_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities";

type Era = "legacy" | "modern";

/** What the server advertises for tasks in each era. */
export function taskCapabilities(era: Era): Record<string, unknown> {
  return era === "legacy"
    ? { tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } }
    : { extensions: { [TASKS_EXTENSION]: {} } };
}

/**
 * Whether this tools/call becomes a task, and with which TTL: 2025 — the client sent `task`
 * (refused for a tool that is not long-running); 2026 — the tool is long-running and the
 * request's client capabilities carry the extension (the server decides).
 */
export function taskRequest(
  era: Era,
  params: Record<string, unknown>,
  tool: ModelTool,
  envelope: Record<string, unknown> | undefined,
): { ttlMs?: number } | undefined {
  if (era === "legacy") {
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
  if (tool.longRunning !== true) return undefined;
  const caps = envelope?.[CLIENT_CAPABILITIES] as { extensions?: Record<string, unknown> } | undefined;
  return caps?.extensions?.[TASKS_EXTENSION] === undefined ? undefined : {};
}

const iso = (ms: number) => new Date(ms).toISOString();

/** 2025-11-25 `Task`. */
export function legacyTask(v: TaskView): Record<string, unknown> {
  return {
    taskId: v.id,
    status: v.status,
    ...(v.statusMessage === undefined ? {} : { statusMessage: v.statusMessage }),
    createdAt: iso(v.createdAt),
    lastUpdatedAt: iso(v.updatedAt),
    ttl: v.ttlMs,
    pollInterval: v.pollIntervalMs,
  };
}

/** 2026-07-28 `Task` (the extension's field names). */
function modernTask(v: TaskView): Record<string, unknown> {
  return {
    taskId: v.id,
    status: v.status,
    ...(v.statusMessage === undefined ? {} : { statusMessage: v.statusMessage }),
    createdAt: iso(v.createdAt),
    lastUpdatedAt: iso(v.updatedAt),
    ttlMs: v.ttlMs,
    pollIntervalMs: v.pollIntervalMs,
  };
}

/** The JSON-RPC error of a failed task (also what tasks/result throws for it). */
function taskError(v: TaskView): { code: number; message: string; data: { code: string } } {
  const code = v.error?.code ?? "AIRLOCK_TASK_FAILED";
  return {
    code: ProtocolErrorCode.InternalError,
    message: v.error?.message ?? "the task failed",
    data: { code },
  };
}

/** The tools/call answer once the task is recorded. */
export function createTaskResult(era: Era, v: TaskView): Record<string, unknown> {
  // 2025: `content: []` keeps the SDK's tools/call result check satisfied; clients read `task`.
  return era === "legacy" ? { content: [], task: legacyTask(v) } : { resultType: "task", ...modernTask(v) };
}

const notFound = (id: unknown) =>
  new ProtocolError(ProtocolErrorCode.InvalidParams, `no task ${JSON.stringify(id)} belongs to this agent`, {
    code: "AIRLOCK_TASK_NOT_FOUND",
  });

const taskIdParams = z.looseObject({ taskId: z.string().min(1).max(200) });

/** Registers the era's task methods on one agent's server. */
export function serveTasks(server: Server, host: AirlockHost, agent: string, era: Era): void {
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
  if (era === "legacy") {
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
            throw new ProtocolError(
              ProtocolErrorCode.InvalidParams,
              "invalid cursor: list again without one",
            );
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
    return;
  }
  // 2026-07-28: the SDK's inbound path drops the params of these extension methods, so
  // http.ts answers them itself (answerModernTaskRequest below) before the SDK sees them.
}

/** The 2026-07-28 tasks/get result: the task, with its result or error inline. */
async function modernGet(host: AirlockHost, agent: string, id: string): Promise<Record<string, unknown>> {
  const v = await host.tasks.get(agent, id);
  if (v === null) throw notFound(id);
  const task = modernTask(v);
  if (v.status === "completed" && v.outcome !== undefined)
    return { ...task, result: toCallToolResult(v.outcome) };
  if (v.status === "failed") return { ...task, error: taskError(v) };
  return task;
}

/**
 * A 2026-07-28 `tasks/get` or `tasks/cancel` request body answered from the store (any replica),
 * or undefined for any other message. The answer is the JSON-RPC response object.
 */
export async function answerModernTaskRequest(
  host: AirlockHost,
  agent: string,
  body: unknown,
): Promise<Record<string, unknown> | undefined> {
  if (body === null || typeof body !== "object" || Array.isArray(body)) return undefined;
  const message = body as { jsonrpc?: unknown; id?: unknown; method?: unknown; params?: unknown };
  if (message.method !== "tasks/get" && message.method !== "tasks/cancel") return undefined;
  if (typeof message.id !== "string" && typeof message.id !== "number") return undefined;
  const reply = (fields: Record<string, unknown>) => ({ jsonrpc: "2.0", id: message.id, ...fields });
  const parsed = taskIdParams.safeParse(message.params);
  if (!parsed.success) {
    return reply({
      error: { code: ProtocolErrorCode.InvalidParams, message: "tasks/* needs params.taskId (a string)" },
    });
  }
  const id = parsed.data.taskId;
  try {
    if (message.method === "tasks/get")
      return reply({ result: { resultType: "complete", ...(await modernGet(host, agent, id)) } });
    if ((await host.tasks.cancel(agent, id)) === null) throw notFound(id);
    return reply({ result: { resultType: "complete" } });
  } catch (error) {
    if (error instanceof ProtocolError) {
      return reply({
        error: {
          code: error.code,
          message: error.message,
          ...(error.data === undefined ? {} : { data: error.data }),
        },
      });
    }
    throw error;
  }
}

/** The task's start options from what the server knows of the call. */
export type { TaskStartOptions };
