// The 2026-07-28 tasks extension `io.modelcontextprotocol/tasks` on the host's task service: the
// server advertises the extension; a long-running tool called by a client whose request names
// the extension is answered `resultType: "task"` at once; `tasks/get` (the result or error
// inline) and `tasks/cancel` are answered here from the store. The SDK's inbound path drops the
// params of these extension methods, so http.ts hands their bodies to answerModernTaskRequest
// before the SDK sees them.
// Invariants: the server decides (only a longRunning tool, only when the request's client
// capabilities carry the extension); every answer comes from the store (any replica answers);
// a task of another agent is "not found"; a failed task's error carries its code in `data.code`.
import { ProtocolError, ProtocolErrorCode } from "@modelcontextprotocol/server";
import type { AirlockHost, ModelTool } from "../../../contracts/host.ts";
import type { TaskView } from "../../../contracts/tasks.ts";
import { toCallToolResult } from "../mapping.ts";
import { notFound, taskError, taskFields, taskIdParams } from "../tasks.ts";

export const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";
const CLIENT_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities";

/** What the server advertises for tasks. */
export const modernTaskCapabilities = () => ({ extensions: { [TASKS_EXTENSION]: {} } });

/** A long-running tool becomes a task when the request's client capabilities carry the extension. */
export function modernTaskRequest(
  tool: ModelTool,
  envelope: Record<string, unknown> | undefined,
): { ttlMs?: number } | undefined {
  if (tool.longRunning !== true) return undefined;
  const caps = envelope?.[CLIENT_CAPABILITIES] as { extensions?: Record<string, unknown> } | undefined;
  return caps?.extensions?.[TASKS_EXTENSION] === undefined ? undefined : {};
}

/** 2026-07-28 `Task` (the extension's field names). */
function modernTask(v: TaskView): Record<string, unknown> {
  return {
    ...taskFields(v),
    ttlMs: v.ttlMs,
    pollIntervalMs: v.pollIntervalMs,
  };
}

/** The tools/call answer once the task is recorded. */
export function modernTaskResult(v: TaskView): Record<string, unknown> {
  return { resultType: "task", ...modernTask(v) };
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
