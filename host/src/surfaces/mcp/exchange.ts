// McpExchange: what one MCP request's exchange with its client offers the tools/call handler
// (tools-call.ts) and the people glue (people.ts, the eras' rounds): the request's envelope and
// signal, the 2026-07-28 round material (request state, input responses), and the ways to talk
// back (notifications, log lines, 2025 elicitation requests). Two makers: `sdkExchange` over the
// SDK's ServerContext (every request an SDK server instance serves), and the 2026-07-28 fast
// lane's own (era-2026/fast-lane.ts), which answers tools/call and tools/list without one.
// Invariants: an exchange belongs to one request; everything it sends is related to that request.
import {
  type ClientCapabilities,
  type LoggingLevel,
  ProtocolError,
  type RequestId,
  type Server,
  type ServerContext,
  type ServerNotification,
  type ElicitResult as WireElicitResult,
} from "@modelcontextprotocol/server";

export type ElicitParams = Parameters<ServerContext["mcpReq"]["elicitInput"]>[0];

export interface McpExchange {
  readonly id: RequestId;
  /** The 2026-07-28 per-request envelope (`_meta` keys of the revision); undefined in 2025. */
  readonly envelope: Record<string, unknown> | undefined;
  /** Aborts when the client cancels or goes away. */
  readonly signal: AbortSignal;
  /** 2026-07-28: the verified request state of an earlier round, or undefined. */
  requestState<T>(): T | undefined;
  /** 2026-07-28: the client's answers to the questions of the earlier round. */
  readonly inputResponses: Record<string, unknown> | undefined;
  /** Sends a notification related to this request (progress, log lines). */
  notify(notification: ServerNotification): Promise<void>;
  /** 2026-07-28: a log line, sent only at the levels the request's envelope asks for. */
  log(level: LoggingLevel, message: string, logger: string): Promise<void>;
  /** 2025: asks the client (elicitation/create) and waits for its answer. */
  elicitInput(
    params: ElicitParams,
    options: { timeout: number; signal?: AbortSignal },
  ): Promise<WireElicitResult>;
  /** 2025: what the client declared at initialize. */
  clientCapabilities(): ClientCapabilities | undefined;
  /** 2025-11-25: tells the client a URL elicitation served its purpose. */
  elicitationComplete(elicitationId: string): Promise<void>;
}

/** The exchange of a request an SDK server instance serves. */
export function sdkExchange(server: Server, ctx: ServerContext): McpExchange {
  const req = ctx.mcpReq;
  return {
    id: req.id,
    envelope: req.envelope as Record<string, unknown> | undefined,
    signal: req.signal,
    requestState: <T>() => req.requestState<T>(),
    inputResponses: req.inputResponses,
    notify: (notification) => req.notify(notification),
    log: (level, message, logger) => req.log(level, message, logger),
    elicitInput: (params, options) => req.elicitInput(params, { ...options, relatedRequestId: req.id }),
    clientCapabilities: () => server.getClientCapabilities(),
    elicitationComplete: (elicitationId) =>
      server.createElicitationCompletionNotifier(elicitationId, { relatedRequestId: req.id })(),
  };
}

/** A JSON object (not an array, not null): what a lane reads a request's parts as. */
export const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === "object" && !Array.isArray(value);

/**
 * The JSON-RPC `error` the SDK answers for a handler's throw: its integer code (-32603 when it has
 * none; the SDK's encodeErrorCode sends -32002 as invalid params), message and a ProtocolError's
 * data. Both fast lanes answer throws with it, as an instance would.
 */
export function errorOfThrown(error: unknown): { code: number; message: string; data?: unknown } {
  const thrown = (error as { code?: unknown }).code;
  const code = Number.isSafeInteger(thrown) ? (thrown as number) : -32603;
  const data = error instanceof ProtocolError ? error.data : undefined;
  const message = error instanceof Error ? error.message : "Internal error";
  return { code: code === -32002 ? -32602 : code, message, ...(data === undefined ? {} : { data }) };
}
