// registerToolsCall(server, unit) → the tools/call handler of one served agent (server.ts builds
// the rest of the server); answerToolsCall(unit, params, exchange) → the answer itself, which the
// 2026-07-28 fast lane (era-2026/fast-lane.ts) also gives without a server instance. A call finds its tool in the request's
// run (serving.ts) and goes through `Run.call`, so the host's whole pipeline applies (enablement,
// secrets, hooks, approvals, validation, sandbox); a long-running tool asked for as a task is
// recorded and queued instead (the era says, tasks.ts). Progress and log lines a tool reports
// while it runs are sent as notifications related to the call (the HTTP exchange upgrades to SSE
// only then), all of them ahead of the result; a call waiting for an operator's approval says so.
// Invariants: a tool failure — an unknown tool, an AIRLOCK_* error — is a result with isError and
// its code in _meta (never a protocol error); any other failure is logged and answered with an
// internal protocol error whose details stay in the host log; the approval listener a call adds
// is removed when the call ends, whatever its outcome. The handler is the MCP front door's hot
// path: its per-call work is the call's own, nothing is set up here that a call does not use.
import { hasCode } from "@airlock/sdk/errors";
import {
  type CallToolRequestParams,
  type CallToolResult,
  type InputRequiredResult,
  type LoggingLevel,
  ProtocolError,
  ProtocolErrorCode,
  type Server,
} from "@modelcontextprotocol/server";
import type { AirlockHost, CallOptions } from "../../contracts/host.ts";
import { subjectFromWire } from "../../index.ts";
import type { ProtocolEra } from "./era.ts";
import { type McpExchange, sdkExchange } from "./exchange.ts";
import {
  errorResult,
  mcpToolName,
  toCallToolResult,
  toMcpNotification,
  unknownToolMessage,
} from "./mapping.ts";
import { PeopleRound } from "./people.ts";
import { type McpCallerContext, type McpServerOptions, runOptionsOf, servedOf, startRun } from "./serving.ts";

/** Who answers a tools/call: the served agent, its era and options, and what is known of the caller. */
export interface CallUnit {
  host: AirlockHost;
  agent: string;
  era: ProtocolEra;
  options: McpServerOptions;
  caller: McpCallerContext;
}

export function registerToolsCall(server: Server, unit: CallUnit): void {
  // A task's answer is the era's own shape (tasks.ts), which the SDK's handler type does not name.
  server.setRequestHandler(
    "tools/call",
    (request, ctx) => answerToolsCall(unit, request.params, sdkExchange(server, ctx)) as Promise<never>,
  );
}

/**
 * The answer to one tools/call (its params validated by the SDK's schema), whichever way the
 * request came: through an SDK server instance, or the 2026-07-28 fast lane.
 */
export async function answerToolsCall(
  unit: CallUnit,
  params: CallToolRequestParams,
  exchange: McpExchange,
): Promise<CallToolResult | InputRequiredResult | Record<string, unknown>> {
  const { host, agent, era, options, caller } = unit;
  const naming = options.naming ?? "wire";
  const log = options.log ?? ((error: unknown) => console.error("airlock mcp:", error));
  const run = await startRun(host, agent, options, caller);
  const name = params.name;
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
  // The tool's worker is woken now, to be awake when the call reaches it (Sandbox.expect).
  host.expectCall(agent, tool.id, caller.conversationId);
  const meta = params._meta as Record<string, unknown> | undefined;
  const input = params.arguments ?? {};
  // A long-running tool asked for as a task (tasks.ts): recorded, queued, answered at once.
  const asTask = era.taskRequest(params as Record<string, unknown>, tool, exchange.envelope);
  if (asTask !== undefined) {
    const { agent: _a, ...run } = runOptionsOf(agent, options, caller);
    const trace = traceOf(meta);
    const taskSubject = subjectOf(meta);
    const view = await host.tasks.start(agent, tool.id, input, {
      ...run,
      ...asTask,
      ...(trace === undefined ? {} : { trace }),
      ...(taskSubject === undefined ? {} : { subject: taskSubject }),
    });
    return era.taskResult(view);
  }
  const progressToken = params._meta?.progressToken;
  // Notifications go out before the result: the result waits for every send the tool started.
  const sending: Array<Promise<void>> = [];
  let minimum: Promise<LoggingLevel | undefined> | undefined;
  const trace = traceOf(meta);
  const subject = subjectOf(meta);
  // Approvals at the client, ctx.elicit and missing secrets go to people as the era asks (people.ts).
  let round: PeopleRound;
  try {
    round = new PeopleRound(
      {
        host,
        agent,
        exchange,
        wireName: name,
        input,
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
    signal: exchange.signal,
    people: round.channel(),
    // W3C trace context from the request's _meta: the call's span continues the client's trace.
    ...(trace === undefined ? {} : { trace }),
    // the end user the client names (docs/oauth.md): checked, audited, used by ctx.oauth
    ...(subject === undefined ? {} : { subject }),
    onNotification: (n) => {
      // 2026-07-28: the request's own envelope says which levels it wants (absent = none).
      const sent = n.type === "log" ? era.requestLog(exchange, n.level, n.message, name) : undefined;
      if (sent !== undefined) {
        sending.push(sent.catch(log));
        return;
      }
      minimum ??= caller.logLevel?.() ?? Promise.resolve(undefined);
      sending.push(
        minimum
          .then((level) => {
            const notification = toMcpNotification(n, name, progressToken, level);
            return notification === undefined ? undefined : exchange.notify(notification);
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
    const outcome = await run.call(tool.id, input, callOptions);
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
