// Pure mappings between the host's shapes and MCP's: a ModelTool becomes an MCP Tool, a
// ToolCallOutcome becomes a CallToolResult, a CallNotification becomes a progress or logging
// notification. Kept free of I/O so they are tested directly.
// Invariants: content parts pass through unchanged (the host already normalised them to MCP
// content types); presentation never appears (ModelTool has none); a call that failed carries
// its AIRLOCK_* code in `_meta["airlock/errorCode"]` besides the text the model reads.
import type { CallToolResult, LoggingLevel, ServerNotification, Tool } from "@modelcontextprotocol/server";
import type { ModelTool, ToolCallOutcome } from "../../contracts/host.ts";
import type { CallNotification } from "../../contracts/runs.ts";

/** How tools are named on the MCP side: `ns__tool` (agents) or the bare tool name (plugin dev). */
export type ToolNaming = "wire" | "bare";

export function mcpToolName(tool: ModelTool, naming: ToolNaming): string {
  if (naming === "wire") return tool.wireName;
  return tool.id.slice(tool.id.indexOf(":") + 1);
}

function objectSchema(schema: Record<string, unknown>): Tool["inputSchema"] {
  return { ...schema, type: "object" } as Tool["inputSchema"];
}

export function toMcpTool(tool: ModelTool, naming: ToolNaming): Tool {
  const out: Tool = {
    name: mcpToolName(tool, naming),
    description: tool.description,
    inputSchema: objectSchema(tool.inputSchema),
    annotations: { ...tool.annotations },
  };
  if (tool.annotations.title !== undefined) out.title = tool.annotations.title;
  // MCP requires an object at the root of an output schema; anything else is left out.
  if (tool.outputSchema !== undefined && tool.outputSchema.type === "object") {
    out.outputSchema = tool.outputSchema as Tool["outputSchema"];
  }
  // 2025-11-25 tasks: a long-running tool may be called as a task (the 2026 codec strips this).
  if (tool.longRunning === true) out.execution = { taskSupport: "optional" };
  out._meta =
    tool.grants === undefined
      ? { "airlock/toolId": tool.id }
      : { "airlock/toolId": tool.id, "airlock/grants": structuredClone(tool.grants) };
  // MCP Apps (SEP-1865): the UI that renders the results, and who may call the tool. A tool
  // only the app may call is still listed: the client keeps it from its model (the spec's rule).
  if (tool.ui !== undefined) out._meta.ui = structuredClone(tool.ui);
  return out;
}

export function toCallToolResult(outcome: ToolCallOutcome): CallToolResult {
  const result: CallToolResult = { content: outcome.result.content as CallToolResult["content"] };
  if (outcome.result.isError === true) result.isError = true;
  if (outcome.result.structuredContent !== undefined)
    result.structuredContent = outcome.result.structuredContent;
  const meta: Record<string, unknown> = { "airlock/callId": outcome.callId };
  if (outcome.errorCode !== undefined) meta["airlock/errorCode"] = outcome.errorCode;
  if (outcome.blocked) meta["airlock/blocked"] = true;
  result._meta = meta;
  return result;
}

/** The text of AIRLOCK_MCP_UNKNOWN_TOOL: what was asked, and names in the form to send (a few). */
export function unknownToolMessage(name: string, served: readonly string[]): string {
  const shown = [...served].sort().slice(0, 20);
  const list = shown.length === 0 ? "none" : shown.join(", ") + (served.length > shown.length ? ", ..." : "");
  return `no tool named ${JSON.stringify(name).slice(0, 200)} is served to this agent; tools served: ${list}`;
}

/** An error result for a call the host refused before it ran (it throws, it does not answer). */
export function errorResult(code: string, message: string): CallToolResult {
  return { content: [{ type: "text", text: message }], isError: true, _meta: { "airlock/errorCode": code } };
}

const SEVERITY: readonly LoggingLevel[] = [
  "debug",
  "info",
  "notice",
  "warning",
  "error",
  "critical",
  "alert",
  "emergency",
];

/** True when a message at `level` passes the client's chosen minimum (all pass when none chosen). */
export function logLevelPasses(level: LoggingLevel, minimum: LoggingLevel | undefined): boolean {
  return minimum === undefined || SEVERITY.indexOf(level) >= SEVERITY.indexOf(minimum);
}

/**
 * The MCP notification for a tool's notification, or undefined when it must not be sent
 * (progress without a progress token, a log line under the client's level).
 */
export function toMcpNotification(
  n: CallNotification,
  toolName: string,
  progressToken: string | number | undefined,
  minimumLevel: LoggingLevel | undefined,
): ServerNotification | undefined {
  if (n.type === "progress") {
    if (progressToken === undefined) return undefined;
    const params: { progressToken: string | number; progress: number; total?: number; message?: string } = {
      progressToken,
      progress: n.progress,
    };
    if (n.total !== undefined) params.total = n.total;
    if (n.message !== undefined) params.message = n.message;
    return { method: "notifications/progress", params };
  }
  if (!logLevelPasses(n.level, minimumLevel)) return undefined;
  return { method: "notifications/message", params: { level: n.level, logger: toolName, data: n.message } };
}
