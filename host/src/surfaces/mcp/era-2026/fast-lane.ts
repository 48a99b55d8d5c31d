// The 2026-07-28 fast lane: the two requests an agent makes most, tools/call and tools/list,
// answered without an SDK server instance per request (which costs a bare server ≈ 30 % of its
// call: bench row 0). A request takes the lane only when the SDK would serve it the plain way:
// the revision's headers agree with the body, the SDK's own schema accepts it, and nothing in it
// asks for what only a server instance gives (a log level or a progress token, which turn the
// answer into a stream; an earlier round's state or answers; a task). Everything else goes to the
// SDK handler as before (modern-http.ts). The answer is the same function the SDK path calls
// (tools-call.ts's answerToolsCall, serving.ts's listTools), encoded as the SDK encodes a
// 2026-07-28 result (`encodeResult`: resultType, the cache fields of a listing, the server's
// identity in `_meta`) and sent as one JSON response.
// Invariants: a request the lane takes gets the answer the SDK path would give it, byte for
// byte apart from per-call ids (fast-lane.test.ts compares the two); the lane never sends a
// notification (a request that could need one does not take it); a call's signal aborts when the
// client goes away, as the SDK's does.
import {
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  LOG_LEVEL_META_KEY,
  PROTOCOL_VERSION_META_KEY,
  ProtocolError,
  SERVER_INFO_META_KEY,
  specTypeSchemas,
} from "@modelcontextprotocol/server";
import { errorOfThrown, isPlainObject, type McpExchange } from "../exchange.ts";
import { listTools } from "../serving.ts";
import { answerToolsCall, type CallUnit } from "../tools-call.ts";

const REVISION = "2026-07-28";
const ENVELOPE_KEYS = [
  PROTOCOL_VERSION_META_KEY,
  CLIENT_INFO_META_KEY,
  CLIENT_CAPABILITIES_META_KEY,
  LOG_LEVEL_META_KEY,
];
/** Params that only a server instance answers (a later round of questions, a task). */
const INSTANCE_PARAMS = ["requestState", "inputResponses", "task"];

/** The headers the revision's standard header rules read (lower-case names). */
export interface LaneHeaders {
  protocolVersion: string | undefined;
  mcpMethod: string | undefined;
  mcpName: string | undefined;
}

/** A request the lane answers: its id, method, params without the envelope, and the envelope. */
export interface LaneRequest {
  id: string | number;
  method: "tools/call" | "tools/list";
  params: Record<string, unknown>;
  envelope: Record<string, unknown>;
}

/** The request when the lane serves it as the SDK would, else undefined (the SDK path answers). */
export function laneRequest(headers: LaneHeaders, body: unknown): LaneRequest | undefined {
  if (!isPlainObject(body) || body.jsonrpc !== "2.0") return undefined;
  const { id, method, params } = body;
  if (method !== "tools/call" && method !== "tools/list") return undefined;
  if (typeof id !== "string" && !Number.isSafeInteger(id)) return undefined;
  if (headers.protocolVersion !== REVISION || headers.mcpMethod !== method || !isPlainObject(params))
    return undefined;
  if (method === "tools/call" && headers.mcpName !== params.name) return undefined;
  const meta = params._meta;
  if (
    !isPlainObject(meta) ||
    meta[PROTOCOL_VERSION_META_KEY] !== REVISION ||
    !isPlainObject(meta[CLIENT_CAPABILITIES_META_KEY])
  )
    return undefined;
  const clientInfo = meta[CLIENT_INFO_META_KEY];
  if (clientInfo !== undefined && !isPlainObject(clientInfo)) return undefined;
  if (LOG_LEVEL_META_KEY in meta || "progressToken" in meta) return undefined;
  for (const key of INSTANCE_PARAMS) if (key in params) return undefined;
  // The SDK's own schema for the method (the one its handler validates with).
  const schema = method === "tools/call" ? specTypeSchemas.CallToolRequest : specTypeSchemas.ListToolsRequest;
  const checked = schema["~standard"].validate(body);
  if (checked instanceof Promise || checked.issues !== undefined) return undefined;
  const envelope: Record<string, unknown> = {};
  const rest: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(meta)) {
    if (ENVELOPE_KEYS.includes(key)) envelope[key] = value;
    else rest[key] = value;
  }
  return { id: id as string | number, method, params: { ...params, _meta: rest }, envelope };
}

/** The JSON-RPC answer to a lane request, as one JSON response. */
export async function answerInLane(
  unit: CallUnit,
  serverInfo: { name: string; version: string },
  request: LaneRequest,
  signal: AbortSignal,
): Promise<Response> {
  let result: Record<string, unknown>;
  try {
    result =
      request.method === "tools/list"
        ? await listTools(unit, request.params.cursor)
        : ((await answerToolsCall(unit, request.params as never, laneExchange(request, signal))) as Record<
            string,
            unknown
          >);
  } catch (error) {
    return json({ jsonrpc: "2.0", id: request.id, error: errorOfThrown(error) });
  }
  return json({
    result: encodeResult(request.method, result, serverInfo),
    jsonrpc: "2.0",
    id: request.id,
  });
}

/**
 * A JSON answer built with the constructor, not `Response.json`: @hono/node-server writes a
 * response it made itself (its lightweight Response, which the global `Response` is) straight from
 * the string, while the static `Response.json` makes undici's own, whose body it must read back as
 * a stream (≈ 100 µs a call, bench row 0).
 */
function json(body: unknown): Response {
  return new Response(JSON.stringify(body), { status: 200, headers: { "content-type": "application/json" } });
}

/**
 * The SDK's 2026-07-28 encode contract for these two methods: the `execution` field a listing's
 * tools may not carry in this revision dropped, `resultType` stamped (`complete` unless the
 * handler said otherwise: input_required, a task), a listing's cache fields filled with the
 * defaults (ttlMs 0, private), and the server's identity in `_meta`.
 */
export function encodeResult(
  method: LaneRequest["method"],
  result: Record<string, unknown>,
  serverInfo: { name: string; version: string },
): Record<string, unknown> {
  let encoded = result;
  if (method === "tools/list" && Array.isArray(result.tools)) {
    const tools = (result.tools as unknown[]).map((tool) => {
      if (!isPlainObject(tool) || !("execution" in tool)) return tool;
      const { execution: _dropped, ...rest } = tool;
      return rest;
    });
    encoded = { ...encoded, tools };
  }
  if (encoded.resultType === undefined) encoded = { ...encoded, resultType: "complete" };
  if (method === "tools/list" && encoded.resultType === "complete") {
    const ttlMs = Number.isSafeInteger(encoded.ttlMs) && (encoded.ttlMs as number) >= 0 ? encoded.ttlMs : 0;
    const cacheScope =
      encoded.cacheScope === "public" || encoded.cacheScope === "private" ? encoded.cacheScope : "private";
    encoded = { ...encoded, ttlMs, cacheScope };
  }
  const meta = encoded._meta;
  if (meta === undefined) return { ...encoded, _meta: { [SERVER_INFO_META_KEY]: serverInfo } };
  if (!isPlainObject(meta) || meta[SERVER_INFO_META_KEY] !== undefined) return encoded;
  return { ...encoded, _meta: { ...meta, [SERVER_INFO_META_KEY]: serverInfo } };
}

/** A lane request's exchange: its envelope and signal; it has nothing to send (see laneRequest). */
function laneExchange(request: LaneRequest, signal: AbortSignal): McpExchange {
  const none = () => Promise.resolve();
  const noInstance = () =>
    Promise.reject(new ProtocolError(-32603, "this request is not served by a server instance"));
  return {
    id: request.id,
    envelope: request.envelope,
    signal,
    requestState: () => undefined,
    inputResponses: undefined,
    // No progress token and no log level: the SDK would send nothing either.
    notify: none,
    log: none,
    elicitInput: noInstance,
    clientCapabilities: () => request.envelope[CLIENT_CAPABILITIES_META_KEY] as never,
    elicitationComplete: none,
  };
}
