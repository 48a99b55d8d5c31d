// createAgentMcpServer(host, agent, options) → a low-level MCP SDK v2 `Server` serving one
// agent's tools. The same factory backs both protocol eras (2026-07-28 per-request and the 2025
// revisions), over HTTP (one instance per request) and stdio (one per connection); what differs
// between the eras is the era object's (era.ts, era-2025/, era-2026/), never a branch here.
// tools/list takes a fresh catalogue snapshot (a host Run) and answers one page of it, in a
// deterministic order (by name); tools/call starts a run for the call and goes through it, so
// the host's whole pipeline applies (enablement, secrets, hooks, approvals, validation, sandbox).
// Progress and log lines a tool reports while it runs are sent as notifications related to the
// call (the HTTP exchange upgrades to SSE only then).
// Invariants: a tool failure is a result with isError and its code in _meta (never a protocol
// error); a protocol error is answered only for a malformed request (a bogus cursor) or an
// unexpected host failure, whose details stay in the host log; nothing here holds state a
// later request needs: what a session remembers (its conversation, its log level) is handed in.
import { hasCode } from "@airlock/sdk/errors";
import {
  type LoggingLevel,
  ProtocolError,
  ProtocolErrorCode,
  Server,
  type Tool,
} from "@modelcontextprotocol/server";
import type { AirlockHost, CallOptions, ModelTool, Run, RunOptions } from "../../contracts/host.ts";
import { subjectFromWire } from "../../index.ts";
import { decodeCursor, encodeCursor, PAGE_SIZE } from "./cursor.ts";
import type { EraName, ProtocolEra } from "./era.ts";
import { ERA_2025 } from "./era-2025/era.ts";
import { ERA_2026 } from "./era-2026/era.ts";
import { verifyRoundState } from "./era-2026/round-state.ts";
import {
  errorResult,
  mcpToolName,
  type ToolNaming,
  toCallToolResult,
  toMcpNotification,
  toMcpTool,
  unknownToolMessage,
} from "./mapping.ts";
import { PeopleRound } from "./people.ts";
import { registerSkillPrompts } from "./skill-prompts.ts";

/** The era objects by the name the SDK negotiated. */
const ERAS: Record<EraName, ProtocolEra> = { legacy: ERA_2025, modern: ERA_2026 };

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
function servedOf(run: Run): Served {
  let served = servedByRun.get(run);
  if (served === undefined) {
    served = { tools: run.tools(), listings: new Map() };
    servedByRun.set(run, served);
  }
  return served;
}
function listingOf(run: Run, naming: ToolNaming): Tool[] {
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

export function createAgentMcpServer(
  host: AirlockHost,
  agent: string,
  options: McpServerOptions,
  caller: McpCallerContext,
): Server {
  const naming = options.naming ?? "wire";
  const log = options.log ?? ((error: unknown) => console.error("airlock mcp:", error));
  const pageSize = options.pageSize ?? PAGE_SIZE;
  const era = ERAS[caller.era];
  const server = new Server(
    { name: options.serverName ?? "airlock", version: host.version },
    {
      capabilities: {
        tools: { listChanged: true },
        prompts: {},
        ...era.capabilities(),
      },
      instructions: `Tools of the Airlock agent "${agent}". Each tool runs sandboxed; a failed call returns isError with a reason and its code in _meta["airlock/errorCode"].`,
      // 2026-07-28 rounds (approvals, ctx.elicit, missing secrets): state sealed by this host
      // (era-2026/round.ts). Verified whatever the era: a request that carries one is checked alike.
      requestState: { verify: (state) => verifyRoundState(host, state) },
    },
  );

  const runOptionsOf = (): RunOptions => {
    const runOptions: RunOptions = { agent, conversationId: caller.conversationId };
    if (options.autoApprove === true) runOptions.autoApprove = true;
    if (options.tools !== undefined) runOptions.tools = options.tools;
    if (options.groups !== undefined) runOptions.groups = options.groups;
    if (options.harness !== undefined) runOptions.harness = options.harness;
    return runOptions;
  };
  const startRun = (): Promise<Run> =>
    caller.runs === undefined ? host.startRun(runOptionsOf()) : caller.runs.get(runOptionsOf());
  era.serve(server, host, agent, caller.setLogLevel); // 2025: tasks/*, logging/setLevel

  registerSkillPrompts(server, host, agent); // skills the agent has enabled (skill-prompts.ts)

  server.setRequestHandler("tools/list", async (request) => {
    const offset = decodeCursor(request.params?.cursor);
    if (offset === undefined) {
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, "invalid cursor: list again without one");
    }
    const tools = listingOf(await startRun(), naming);
    const page = tools.slice(offset, offset + pageSize);
    const next = offset + pageSize < tools.length ? { nextCursor: encodeCursor(offset + pageSize) } : {};
    return { tools: page, ...next };
  });

  server.setRequestHandler("tools/call", async (request, ctx) => {
    const run = await startRun();
    const name = request.params.name;
    const { tools } = servedOf(run);
    const tool = tools.find((t) => mcpToolName(t, naming) === name);
    if (tool === undefined) {
      return errorResult(
        "AIRLOCK_MCP_UNKNOWN_TOOL",
        unknownToolMessage(
          name,
          tools.map((t) => mcpToolName(t, naming)),
        ),
      );
    }
    // A long-running tool asked for as a task (tasks.ts): recorded, queued, answered at once.
    const asTask = era.taskRequest(
      request.params as Record<string, unknown>,
      tool,
      ctx.mcpReq.envelope as Record<string, unknown> | undefined,
    );
    if (asTask !== undefined) {
      const { agent: _a, ...run } = runOptionsOf();
      const trace = traceOf(request.params._meta as Record<string, unknown> | undefined);
      const taskSubject = subjectOf(request.params._meta as Record<string, unknown> | undefined);
      const view = await host.tasks.start(agent, tool.id, request.params.arguments ?? {}, {
        ...run,
        ...asTask,
        ...(trace === undefined ? {} : { trace }),
        ...(taskSubject === undefined ? {} : { subject: taskSubject }),
      });
      return era.taskResult(view) as never;
    }
    const progressToken = request.params._meta?.progressToken;
    // Notifications go out before the result: the result waits for every send the tool started.
    const sending: Array<Promise<void>> = [];
    let minimum: Promise<LoggingLevel | undefined> | undefined;
    const trace = traceOf(request.params._meta as Record<string, unknown> | undefined);
    const subject = subjectOf(request.params._meta as Record<string, unknown> | undefined);
    // Approvals at the client, ctx.elicit and missing secrets go to people as the era asks (people.ts).
    let round: PeopleRound;
    try {
      round = new PeopleRound(
        {
          host,
          server,
          agent,
          ctx,
          wireName: name,
          input: request.params.arguments ?? {},
          pagesOrigin: caller.pagesOrigin,
          ...(options.approvalWaitMs === undefined ? {} : { approvalWaitMs: options.approvalWaitMs }),
          log,
        },
        era,
      );
    } catch (error) {
      if (hasCode(error) && error.code.startsWith("AIRLOCK_")) return errorResult(error.code, error.message);
      throw error;
    }
    const callOptions: CallOptions = {
      signal: ctx.mcpReq.signal,
      people: round.channel(),
      // W3C trace context from the request's _meta: the call's span continues the client's trace.
      ...(trace === undefined ? {} : { trace }),
      // the end user the client names (docs/oauth.md): checked, audited, used by ctx.oauth
      ...(subject === undefined ? {} : { subject }),
      onNotification: (n) => {
        // 2026-07-28: the request's own envelope says which levels it wants (absent = none).
        const sent = n.type === "log" ? era.requestLog(ctx, n.level, n.message, name) : undefined;
        if (sent !== undefined) {
          sending.push(sent.catch(log));
          return;
        }
        minimum ??= caller.logLevel?.() ?? Promise.resolve(undefined);
        sending.push(
          minimum
            .then((level) => {
              const notification = toMcpNotification(n, name, progressToken, level);
              return notification === undefined ? undefined : ctx.mcpReq.notify(notification);
            })
            .catch(log),
        );
      },
    };
    // A call that waits for an operator's approval says so (and where), instead of silence; a
    // 2025 client that opens URLs is also pointed at the host's approval page.
    let approvalPageDone: (() => Promise<void>) | undefined;
    const offApproval = host.on("permission.required", (event) => {
      if (event.runId !== run.id || event.toolName !== tool.id) return;
      approvalPageDone = round.offerApprovalPage(event.approvalId, name);
      const page =
        caller.pagesOrigin === undefined
          ? ""
          : `, on its approval page ${caller.pagesOrigin}/approve/${event.approvalId}`;
      const message = `waiting for an operator's approval of ${name} (approval ${event.approvalId}): decide it in the host's console (/admin)${page} or with POST /api/approvals/${event.approvalId}`;
      // Through the same mapping as the tool's own: progress only with a token, the log by level.
      callOptions.onNotification?.({ type: "progress", progress: 0, message });
      callOptions.onNotification?.({ type: "log", level: "info", message });
    });
    try {
      const outcome = await run.call(tool.id, request.params.arguments ?? {}, callOptions);
      if (approvalPageDone !== undefined) await approvalPageDone();
      const asking = round.finish(outcome.errorCode);
      if (sending.length > 0) {
        await Promise.all(sending);
        // A send resolves before the transport has written it (stdio writes on a later turn):
        // one more turn keeps every notification ahead of the result on the wire.
        await new Promise((resolve) => setImmediate(resolve));
      }
      if (asking !== undefined) return asking;
      return toCallToolResult(outcome);
    } catch (error) {
      if (hasCode(error) && error.code.startsWith("AIRLOCK_")) return errorResult(error.code, error.message);
      log(error);
      throw new ProtocolError(ProtocolErrorCode.InternalError, "the host failed unexpectedly; see its log");
    } finally {
      offApproval();
    }
  });
  return server;
}

/** The end user an MCP request names in `_meta["airlock/subject"]` (the pipeline checks it). */
function subjectOf(meta: Record<string, unknown> | undefined): string | undefined {
  return subjectFromWire(meta?.["airlock/subject"]);
}

/** A W3C trace context an MCP request carries in its _meta. */
function traceOf(meta: Record<string, unknown> | undefined): CallOptions["trace"] | undefined {
  const traceparent = meta?.traceparent;
  const tracestate = meta?.tracestate;
  if (typeof traceparent !== "string") return undefined;
  return { traceparent, ...(typeof tracestate === "string" ? { tracestate } : {}) };
}
