// MCP requests replayed without a client: the SDK v2 client (2026-07-28, stateless) sends each
// request once while its fetch is recorded, then `send` posts the same headers (2026-07-28 names
// the method and the tool in headers too) with the params given and parses the answer. The growth rows time the host, not the client: the SDK client caches
// tools/list, walks every page and validates every tool it reads, and that work grows with the
// listing on the client's side.
// Invariant: what `send` posts is what the SDK client sent for that method, but for the params.
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";

const MODERN = { versionNegotiation: { mode: { pin: "2026-07-28" as const } } };

export interface RawMcp {
  /**
   * Posts `method` with `params` (the recorded request's headers and `_meta` kept; a tools/call
   * names the tool the client called); answers the JSON-RPC result.
   */
  send(method: string, params: Record<string, unknown>): Promise<Record<string, unknown>>;
  close(): Promise<void>;
}

interface Recorded {
  url: string;
  headers: Record<string, string>;
  body: { jsonrpc: string; id: unknown; method: string; params?: Record<string, unknown> };
}

/**
 * Connects an SDK client to `url` with `token`, lists the tools and calls `callTool` (when given)
 * while recording, and replays from the recorded requests.
 */
export async function rawMcp(url: string, token: string, callTool?: string): Promise<RawMcp> {
  const recorded = new Map<string, Recorded>();
  const recordingFetch: typeof fetch = async (input, init) => {
    const body = typeof init?.body === "string" ? (JSON.parse(init.body) as Recorded["body"]) : undefined;
    if (body !== undefined && !recorded.has(body.method)) {
      recorded.set(body.method, {
        url: String(input),
        headers: Object.fromEntries(new Headers(init?.headers).entries()),
        body,
      });
    }
    return fetch(input, init);
  };
  const client = new Client({ name: "airlock-bench", version: "1.0.0" }, MODERN);
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), {
      fetch: recordingFetch,
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  await client.listTools();
  if (callTool !== undefined) await client.callTool({ name: callTool, arguments: { text: "hi" } });
  let id = 1_000_000;
  return {
    async send(method, params) {
      const base = recorded.get(method);
      if (base === undefined) throw new Error(`the SDK client sent no ${method} request`);
      const meta = base.body.params?._meta;
      const body = {
        ...base.body,
        id: id++,
        method,
        params: { ...params, ...(meta ? { _meta: meta } : {}) },
      };
      const response = await fetch(base.url, {
        method: "POST",
        headers: base.headers,
        body: JSON.stringify(body),
      });
      const text = await response.text();
      // an answer as JSON, or as one server-sent event
      const json = response.headers.get("content-type")?.includes("text/event-stream")
        ? text
            .split("\n")
            .filter((line) => line.startsWith("data:"))
            .map((line) => line.slice(5))
            .join("")
        : text;
      const message = JSON.parse(json) as { result?: Record<string, unknown>; error?: unknown };
      if (message.result === undefined) throw new Error(`${method} failed: ${JSON.stringify(message.error)}`);
      return message.result;
    },
    close: () => client.close(),
  };
}
