// What the request handlers of one served agent share (server.ts builds them, tools-call.ts
// answers tools/call): the options a server is made with, what a serving unit knows of its
// caller, how a request gets its Run, and a run's served tools with their MCP listing.
// Invariants: a request takes its run from the caller's RunCache when there is one, else starts
// a fresh one, always with the same RunOptions for the same options and caller; a run's tools
// and listings are worked out once per run (a run is reused across requests, run-cache.ts) and
// nothing mutates them; nothing here holds state beyond that per-run memo, which goes with the run.
import { type LoggingLevel, ProtocolError, ProtocolErrorCode, type Tool } from "@modelcontextprotocol/server";
import type { AirlockHost, ModelTool, Run, RunOptions } from "../../contracts/host.ts";
import { decodeCursor, encodeCursor, PAGE_SIZE } from "./cursor.ts";
import type { EraName } from "./era.ts";
import { type ToolNaming, toMcpTool } from "./mapping.ts";

export interface McpServerOptions {
  /** Run tools that are not read-only without waiting for an operator's approval (default false). */
  autoApprove?: boolean;
  /** `wire` (default): `ns__tool`; `bare`: the tool name alone (airlock-plugin dev, one plugin). */
  naming?: ToolNaming;
  /** Restrict the served tools (RunOptions.tools / groups / harness). */
  tools?: string[];
  groups?: string[];
  harness?: string[];
  /** The name the server gives itself; default "airlock". */
  serverName?: string;
  /** Tools per tools/list page (default PAGE_SIZE). */
  pageSize?: number;
  /** 2026-07-28: how long a retried call waits for the operator's decision before asking again (ms; default 45 s). */
  approvalWaitMs?: number;
  /** Where unexpected failures go; default console.error (stderr, safe for stdio). */
  log?: (error: unknown) => void;
  /**
   * HTTP, 2026-07-28: answer tools/call and tools/list without a server instance when the SDK
   * would answer them the plain way (era-2026/fast-lane.ts); default true. False sends every
   * request through the SDK handler.
   */
  fastLane?: boolean;
}

/** What one serving unit (an HTTP request, a stdio connection) knows of its caller. */
export interface McpCallerContext {
  era: EraName;
  /** The conversation calls belong to (ctx.state); a 2025 session's own, else the agent's MCP default. */
  conversationId: string;
  /** 2025 era: the minimum log level the session chose (undefined = everything). */
  logLevel?: () => Promise<LoggingLevel | undefined>;
  /** 2025 era: remember the level a session chose (logging/setLevel). */
  setLogLevel?: (level: LoggingLevel) => Promise<void>;
  /** Where runs come from (a RunCache shared by the endpoint); default a new run per request. */
  runs?: { get(options: RunOptions): Promise<Run> };
  /** Origin of the host's approval and secret pages (HTTP only), for URL-mode elicitations. */
  pagesOrigin?: string;
}

/** The RunOptions of a request to `agent`'s server, from its options and caller. */
export function runOptionsOf(agent: string, options: McpServerOptions, caller: McpCallerContext): RunOptions {
  const runOptions: RunOptions = { agent, conversationId: caller.conversationId };
  if (options.autoApprove === true) runOptions.autoApprove = true;
  if (options.tools !== undefined) runOptions.tools = options.tools;
  if (options.groups !== undefined) runOptions.groups = options.groups;
  if (options.harness !== undefined) runOptions.harness = options.harness;
  return runOptions;
}

/** The run a request goes through: the caller's cached one, else a fresh host Run. */
export function startRun(
  host: AirlockHost,
  agent: string,
  options: McpServerOptions,
  caller: McpCallerContext,
): Promise<Run> {
  return caller.runs === undefined
    ? host.startRun(runOptionsOf(agent, options, caller))
    : caller.runs.get(runOptionsOf(agent, options, caller));
}

/**
 * A run's served tools and their MCP listing (in name order, per naming), worked out once per
 * run: `Run.tools()` hands out a fresh copy each time, and a run is reused across requests
 * (run-cache.ts). Nothing here mutates them.
 */
interface Served {
  tools: ModelTool[];
  listings: Map<ToolNaming, Tool[]>;
}
const servedByRun = new WeakMap<Run, Served>();

export function servedOf(run: Run): Served {
  let served = servedByRun.get(run);
  if (served === undefined) {
    served = { tools: run.tools(), listings: new Map() };
    servedByRun.set(run, served);
  }
  return served;
}

export function listingOf(run: Run, naming: ToolNaming): Tool[] {
  const served = servedOf(run);
  let listing = served.listings.get(naming);
  if (listing === undefined) {
    listing = served.tools
      .map((tool) => toMcpTool(tool, naming))
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    served.listings.set(naming, listing);
  }
  return listing;
}

/**
 * One page of tools/list: a catalogue snapshot (the request's run), in a deterministic order (by
 * name), `options.pageSize` tools from the cursor's offset. A cursor this server did not issue is
 * invalid params.
 */
export async function listTools(
  unit: { host: AirlockHost; agent: string; options: McpServerOptions; caller: McpCallerContext },
  cursor: unknown,
): Promise<{ tools: Tool[]; nextCursor?: string }> {
  const { host, agent, options, caller } = unit;
  const offset = decodeCursor(cursor);
  if (offset === undefined) {
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, "invalid cursor: list again without one");
  }
  const pageSize = options.pageSize ?? PAGE_SIZE;
  const tools = listingOf(await startRun(host, agent, options, caller), options.naming ?? "wire");
  const page = tools.slice(offset, offset + pageSize);
  return offset + pageSize < tools.length
    ? { tools: page, nextCursor: encodeCursor(offset + pageSize) }
    : { tools: page };
}
