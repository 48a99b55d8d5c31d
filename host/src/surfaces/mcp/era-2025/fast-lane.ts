// The 2025 fast lane: a session's tools/call answered without a fresh SDK server instance (and
// without replaying the session's initialize to it, legacy-http.ts), which cost the call more than
// the bare server's whole answer (bench row 0). A call takes the lane only when the SDK would
// serve it the plain way and could not need the instance: the SDK's own schema accepts it, it is
// not a task, and the session's client declared no elicitation (so the call never sends the
// client a request of its own). Progress and log lines still go out before the result: they are
// written to the same one-exchange transport the SDK path uses (exchange-transport.ts), which turns
// the answer into an SSE stream on the first of them, exactly as for an instance.
// Invariants: a call the lane takes gets the answer the SDK path would give it (fast-lane.test.ts
// in test/e2e compares the two); a `notifications/cancelled` for it aborts its signal; tools/list
// and everything else go to an instance (a listing may need the revision's output-schema wrap).
import { type JSONRPCMessage, ProtocolError, specTypeSchemas } from "@modelcontextprotocol/server";
import { errorOfThrown, isPlainObject, type McpExchange } from "../exchange.ts";
import { answerToolsCall, type CallUnit } from "../tools-call.ts";
import type { ExchangeTransport } from "./exchange-transport.ts";
import type { Claims } from "./session.ts";

export interface LegacyLaneCall {
  id: string | number;
  params: Record<string, unknown>;
}

/** The call when the lane serves it as an instance would, else undefined (an instance answers). */
export function legacyLaneCall(message: unknown, claims: Claims): LegacyLaneCall | undefined {
  if (!isPlainObject(message) || message.jsonrpc !== "2.0" || message.method !== "tools/call")
    return undefined;
  const { id, params } = message;
  if (typeof id !== "string" && !Number.isSafeInteger(id)) return undefined;
  if (!isPlainObject(params) || "task" in params) return undefined;
  // A client that answers elicitations may be asked one (approvals, ctx.elicit, pages).
  if (claims.e !== undefined && (claims.e.f || claims.e.u)) return undefined;
  const checked = specTypeSchemas.CallToolRequest["~standard"].validate(message);
  if (checked instanceof Promise || checked.issues !== undefined) return undefined;
  return { id: id as string | number, params };
}

/**
 * Answers the call on `transport` (its handle() has the message and hands back the Response):
 * the result, or the error an instance would answer for a throw.
 */
export function answerInLegacyLane(unit: CallUnit, call: LegacyLaneCall, transport: ExchangeTransport): void {
  const controller = new AbortController();
  transport.onmessage = (message) => {
    // legacy-http.ts delivers the client's cancellation of this call here, as to an instance
    if ("method" in message && message.method === "notifications/cancelled")
      controller.abort(new DOMException("the client cancelled the call", "AbortError"));
  };
  const reply = (message: Record<string, unknown>) =>
    transport.send({ jsonrpc: "2.0", id: call.id, ...message } as JSONRPCMessage).catch(() => undefined);
  answerToolsCall(unit, call.params as never, legacyExchange(call, transport, controller.signal)).then(
    (result) => reply({ result }),
    (error: unknown) => reply({ error: errorOfThrown(error) }),
  );
}

/** A lane call's exchange: notifications go on the call's exchange; it never asks the client. */
function legacyExchange(
  call: LegacyLaneCall,
  transport: ExchangeTransport,
  signal: AbortSignal,
): McpExchange {
  const never = () =>
    Promise.reject(new ProtocolError(-32603, "this call is not served by a server instance"));
  return {
    id: call.id,
    envelope: undefined,
    signal,
    requestState: () => undefined,
    inputResponses: undefined,
    notify: (notification) =>
      transport.send({ jsonrpc: "2.0", ...notification } as JSONRPCMessage, { relatedRequestId: call.id }),
    // 2025: a tool's log line goes by the session's level as a notification (tools-call.ts)
    log: () => Promise.resolve(),
    elicitInput: never,
    // the session declared no elicitation (legacyLaneCall); an instance knows as little
    clientCapabilities: () => undefined,
    elicitationComplete: () => Promise.resolve(),
  };
}
