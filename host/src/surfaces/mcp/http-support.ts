// Small HTTP helpers of the MCP endpoint: reading a bounded JSON-RPC body, checking it is one
// JSON-RPC message, and JSON-RPC error answers that carry Airlock's stable code in
// `error.data.code`.
// Invariants: every refusal made here (-32700 parse error, -32600 invalid request, -32000 other)
// carries `error.data.code` (docs/mcp.md); a body that passes `oneMessageRefusal` is a request, a
// notification or a response, so the SDK's handler never answers its own -32600 without a code.
import type { IncomingMessage } from "node:http";
import {
  isJSONRPCErrorResponse,
  isJSONRPCNotification,
  isJSONRPCRequest,
  isJSONRPCResultResponse,
} from "@modelcontextprotocol/server";
import type { MCP_ERRORS } from "./errors.ts";

/** JSON-RPC error codes of the refusals made here. */
const PARSE_ERROR = -32700;
const INVALID_REQUEST = -32600;

/**
 * A JSON-RPC error answer (id null unless given: it answers the HTTP request, not a JSON-RPC
 * one); `rpcCode` is the JSON-RPC code (-32000, a server error, unless the refusal has its own).
 */
export function jsonRpcError(
  status: number,
  code: keyof typeof MCP_ERRORS,
  message: string,
  headers: Record<string, string> = {},
  rpcCode = -32000,
  id: string | number | null = null,
): Response {
  return Response.json(
    { jsonrpc: "2.0", error: { code: rpcCode, message, data: { code } }, id },
    { status, headers },
  );
}

/**
 * The -32600 refusal of a POST body that is not one JSON-RPC message (a batch, a scalar, an
 * object missing `jsonrpc: "2.0"` or a method, malformed params), or null when it is one.
 */
export function oneMessageRefusal(body: unknown): Response | null {
  if (Array.isArray(body)) {
    return jsonRpcError(
      400,
      "AIRLOCK_MCP_BAD_REQUEST",
      "Invalid request: send one JSON-RPC message per POST (batches are not accepted)",
      {},
      INVALID_REQUEST,
    );
  }
  if (
    isJSONRPCRequest(body) ||
    isJSONRPCNotification(body) ||
    isJSONRPCResultResponse(body) ||
    isJSONRPCErrorResponse(body)
  )
    return null;
  const id = (body as { id?: unknown } | null)?.id;
  return jsonRpcError(
    400,
    "AIRLOCK_MCP_BAD_REQUEST",
    'Invalid request: the body is not a JSON-RPC 2.0 message ({"jsonrpc": "2.0", "method", ...})',
    {},
    INVALID_REQUEST,
    typeof id === "string" || typeof id === "number" ? id : null,
  );
}

/**
 * The POST body parsed as JSON, or the Response that refuses it: 415 for a media type that is
 * not JSON, 413 past `maxBytes`, 400 (-32700) for bytes that do not parse.
 */
export async function readJsonBody(
  request: Request,
  maxBytes: number,
  incoming?: IncomingMessage,
): Promise<{ ok: true; body: unknown } | { ok: false; response: Response }> {
  // A tagged union, not `instanceof Response`: @hono/node-server swaps the global Response.
  const refuse = (response: Response) => ({ ok: false as const, response });
  const type = request.headers.get("content-type")?.split(";")[0]?.trim().toLowerCase();
  if (type !== "application/json") {
    return refuse(
      jsonRpcError(415, "AIRLOCK_MCP_BAD_REQUEST", "send the JSON-RPC message as application/json"),
    );
  }
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (declared > maxBytes) {
    return refuse(jsonRpcError(413, "AIRLOCK_MCP_BAD_REQUEST", `the body is over ${maxBytes} bytes`));
  }
  // Read once, here: the SDK handler is given the parsed body and never reads the stream. From
  // the Node request itself when there is one (the web Request's stream costs ≈ 80 µs a call).
  const text = incoming === undefined ? await request.text() : await readIncoming(incoming, maxBytes);
  if (text === null || Buffer.byteLength(text) > maxBytes) {
    return refuse(jsonRpcError(413, "AIRLOCK_MCP_BAD_REQUEST", `the body is over ${maxBytes} bytes`));
  }
  try {
    return { ok: true, body: JSON.parse(text) };
  } catch {
    return refuse(
      jsonRpcError(400, "AIRLOCK_MCP_BAD_REQUEST", "Parse error: the body is not JSON", {}, PARSE_ERROR),
    );
  }
}

/** The body of a Node request as UTF-8 text, or null once it grows past `maxBytes` (then drained unread). */
function readIncoming(incoming: IncomingMessage, maxBytes: number): Promise<string | null> {
  return new Promise<string | null>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        incoming.off("data", onData);
        incoming.resume(); // the rest is read and dropped, so the connection can answer
        resolve(null);
        return;
      }
      chunks.push(chunk);
    };
    incoming.on("data", onData);
    incoming.once("end", () => resolve(Buffer.concat(chunks, size).toString("utf8")));
    incoming.once("error", reject);
  });
}
