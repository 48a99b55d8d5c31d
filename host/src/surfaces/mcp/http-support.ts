// Small HTTP helpers of the MCP endpoint: reading a bounded JSON-RPC body, and JSON-RPC error
// answers that carry Airlock's stable code in `error.data.code`.
import type { IncomingMessage } from "node:http";
import type { MCP_ERRORS } from "./errors.ts";

/** A JSON-RPC error answer (id null: it answers the HTTP request, not a JSON-RPC one). */
export function jsonRpcError(
  status: number,
  code: keyof typeof MCP_ERRORS,
  message: string,
  headers: Record<string, string> = {},
): Response {
  return Response.json(
    { jsonrpc: "2.0", error: { code: -32000, message, data: { code } }, id: null },
    { status, headers },
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
      Response.json(
        { jsonrpc: "2.0", error: { code: -32700, message: "Parse error: the body is not JSON" }, id: null },
        { status: 400 },
      ),
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
