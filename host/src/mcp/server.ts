// createAgentMcpServer(host, agent, options) → an MCP `Server` serving one agent's tools.
// tools/list takes a fresh catalogue snapshot (a host Run) and lists its tools; tools/call
// goes through that run, so the host's whole pipeline applies (enablement, secrets, hooks,
// approvals, validation, sandbox). Progress and log lines a tool reports while it runs are
// sent as MCP notifications on the request's own stream.
// Invariants: a tool failure is a result with isError (never a protocol error); a protocol
// error is answered only for a malformed request or an unexpected host failure, whose
// details stay in the host log; presentations never reach MCP (ModelTool carries none).
import { randomUUID } from "node:crypto";
import { hasCode } from "@airlock/sdk/errors";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  type LoggingLevel,
  McpError,
  SetLevelRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import type { AirlockHost, CallOptions, Run, RunOptions } from "../host-types.ts";
import {
  errorResult,
  mcpToolName,
  type ToolNaming,
  toCallToolResult,
  toMcpNotification,
  toMcpTool,
} from "./mapping.ts";

export interface McpServerOptions {
  /** Run tools that are not read-only without waiting for an operator's approval (default false). */
  autoApprove?: boolean;
  /** The conversation the session's calls belong to (their ctx.state); default a fresh id. */
  conversationId?: string;
  /** `wire` (default): `ns__tool`; `bare`: the tool name alone (airlock-plugin dev, one plugin). */
  naming?: ToolNaming;
  /** Restrict the served tools (RunOptions.tools / groups / harness). */
  tools?: string[];
  groups?: string[];
  harness?: string[];
  /** The name the server gives itself in the MCP handshake; default "airlock". */
  serverName?: string;
  /** Where unexpected failures go; default console.error (stderr, safe for stdio). */
  log?: (error: unknown) => void;
}

export function createAgentMcpServer(
  host: AirlockHost,
  agent: string,
  options: McpServerOptions = {},
): Server {
  const naming = options.naming ?? "wire";
  const log = options.log ?? ((error: unknown) => console.error("airlock mcp:", error));
  const conversationId = options.conversationId ?? `mcp-${randomUUID()}`;
  const server = new Server(
    { name: options.serverName ?? "airlock", version: host.version },
    {
      capabilities: { tools: { listChanged: false }, logging: {} },
      instructions: `Tools of the Airlock agent "${agent}". Each tool runs sandboxed; a failed call returns isError with a reason.`,
    },
  );
  let run: Run | undefined;
  let minimumLevel: LoggingLevel | undefined;

  const startRun = async (): Promise<Run> => {
    const runOptions: RunOptions = { agent, conversationId };
    if (options.autoApprove === true) runOptions.autoApprove = true;
    if (options.tools !== undefined) runOptions.tools = options.tools;
    if (options.groups !== undefined) runOptions.groups = options.groups;
    if (options.harness !== undefined) runOptions.harness = options.harness;
    run = await host.startRun(runOptions);
    return run;
  };

  server.setRequestHandler(SetLevelRequestSchema, async (request) => {
    minimumLevel = request.params.level;
    return {};
  });

  server.setRequestHandler(ListToolsRequestSchema, async () => {
    const current = await startRun();
    return { tools: current.tools().map((tool) => toMcpTool(tool, naming)) };
  });

  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const current = run ?? (await startRun());
    const name = request.params.name;
    const tool = current.tools().find((t) => mcpToolName(t, naming) === name);
    // An unlisted name still goes to the host when it looks like a wire name, so the host's own
    // refusal (not exposed in this run, not enabled, ...) reaches the model with its code.
    const toolId =
      tool?.id ?? (naming === "wire" && name.includes("__") ? name.replace("__", ":") : undefined);
    if (toolId === undefined) {
      return errorResult(
        "AIRLOCK_MCP_UNKNOWN_TOOL",
        `no tool named ${JSON.stringify(name)} is served to this agent`,
      );
    }
    const progressToken = request.params._meta?.progressToken;
    // Notifications go out before the result: the response waits for every send the tool
    // started, then for one turn of the event loop. The SDK's client handles a response at once
    // but a notification a microtask later, so a last progress notification read in the same
    // chunk as the response would find its handler already gone.
    const sending: Array<Promise<void>> = [];
    const callOptions: CallOptions = {
      signal: extra.signal,
      onNotification: (n) => {
        const notification = toMcpNotification(n, name, progressToken, minimumLevel);
        if (notification === undefined) return;
        sending.push(extra.sendNotification(notification).catch((error: unknown) => log(error)));
      },
    };
    try {
      const outcome = await current.call(toolId, request.params.arguments ?? {}, callOptions);
      if (sending.length > 0) {
        await Promise.all(sending);
        await new Promise((resolve) => setImmediate(resolve));
      }
      return toCallToolResult(outcome);
    } catch (error) {
      if (hasCode(error) && error.code.startsWith("AIRLOCK_")) return errorResult(error.code, error.message);
      log(error);
      throw new McpError(ErrorCode.InternalError, "the host failed unexpectedly; see its log");
    }
  });
  return server;
}
