// The 2025-era (initialize-based) side of the MCP HTTP endpoint, served without server-side
// sessions. `initialize` mints a session id that is the session itself, sealed under the host's
// master key (agent, token id, conversation id, issue time): any replica sharing the key opens
// it, so no request needs the process that answered the last one. Each POST is answered by a
// fresh server instance over one exchange (exchange-transport.ts): plain JSON, or SSE when the
// call streams progress or logs. GET opens the session's notification stream (tool-list
// changes); DELETE ends this process's streams of the session.
// Per-process, and said so in docs/mcp.md: open GET streams (a client reconnects to any replica)
// and the requests in flight here (a `notifications/cancelled` cancels a call only when it
// reaches the process running it). A session's log level lives in the store.
// Invariants: a session id opens only for the agent and token that initialized it, within its
// lifetime; streams are capped per token and in all, and a client over a cap gets 429 with a
// code, never a silent eviction of someone else's stream.
import { randomUUID } from "node:crypto";
import type { JSONRPCMessage, LoggingLevel } from "@modelcontextprotocol/server";
import type { AirlockHost } from "../../contracts/host.ts";
import type { TokenRecord } from "../../state/store/types.ts";
import { externalBase } from "../http/authz/config.ts";
import { ExchangeTransport } from "./exchange-transport.ts";
import { jsonRpcError } from "./http-support.ts";
import type { ListChangeHub } from "./list-changes.ts";
import type { RunCache } from "./run-cache.ts";
import { createAgentMcpServer, type McpServerOptions } from "./server.ts";

export interface StreamLimits {
  /** Open GET streams per token on this process. */
  perToken: number;
  /** Open GET streams on this process. */
  total: number;
  /** SSE keep-alive comment interval (ms; 0 = none). */
  keepAliveMs: number;
  /** How long a session id opens after its initialize (ms). */
  sessionTtlMs: number;
}

const DEFAULT_LIMITS: StreamLimits = {
  perToken: 8,
  total: 256,
  keepAliveMs: 15_000,
  sessionTtlMs: 24 * 60 * 60 * 1000,
};

/** The 2025-era revisions this endpoint speaks (the header a client sends after initialize). */
export const LEGACY_VERSIONS: ReadonlySet<string> = new Set([
  "2024-11-05",
  "2025-03-26",
  "2025-06-18",
  "2025-11-25",
]);
const SEAL_PURPOSE = "mcp-session";
const LOG_LEVEL_KEY = "mcp.logLevel";

interface Claims {
  /** agent */
  a: string;
  /** token id */
  t: string;
  /** conversation id */
  c: string;
  /** issued at (ms since the epoch) */
  i: number;
  /** what the client declared at initialize: its protocol version and elicitation modes (form, url) */
  v?: string;
  e?: { f: boolean; u: boolean };
}

interface OpenStream {
  tokenId: string;
  sessionId: string;
  close: () => void;
}

const encoder = new TextEncoder();

export class LegacyMcpHttp {
  readonly #host: AirlockHost;
  readonly #options: McpServerOptions;
  readonly #hub: ListChangeHub;
  readonly #limits: StreamLimits;
  readonly #streams = new Set<OpenStream>();
  readonly #inflight = new Map<string, ExchangeTransport>();
  /** Requests (elicitations) calls running here sent, by their wire id, until answered or ended. */
  readonly #asked = new Map<string, ExchangeTransport>();
  readonly #runs: RunCache;

  constructor(
    host: AirlockHost,
    options: McpServerOptions,
    hub: ListChangeHub,
    limits: Partial<StreamLimits>,
    runs: RunCache,
  ) {
    this.#host = host;
    this.#runs = runs;
    this.#options = options;
    this.#hub = hub;
    this.#limits = { ...DEFAULT_LIMITS, ...limits };
  }

  async handle(
    request: Request,
    body: unknown,
    caller: { agent: string; token: TokenRecord },
  ): Promise<Response> {
    const header = request.headers.get("mcp-session-id");
    if (request.method === "POST" && isInitialize(body)) {
      const claims: Claims = {
        a: caller.agent,
        t: caller.token.id,
        c: `mcp-${randomUUID()}`,
        i: Date.now(),
        ...declared(body),
      };
      const sessionId = this.#host.seal(SEAL_PURPOSE, claims);
      return this.#exchange(body as JSONRPCMessage, claims, sessionId, { "mcp-session-id": sessionId });
    }
    if (header === null) {
      return jsonRpcError(
        400,
        "AIRLOCK_MCP_SESSION_REQUIRED",
        "send initialize first (POST), then send its Mcp-Session-Id with every request",
      );
    }
    const claims = this.#open(header, caller);
    if (claims === null) {
      return jsonRpcError(
        404,
        "AIRLOCK_MCP_SESSION_NOT_FOUND",
        "unknown or expired MCP session; initialize again",
      );
    }
    const version = request.headers.get("mcp-protocol-version");
    if (version !== null && !LEGACY_VERSIONS.has(version)) {
      return jsonRpcError(
        400,
        "AIRLOCK_MCP_BAD_REQUEST",
        `unsupported MCP-Protocol-Version ${JSON.stringify(version.slice(0, 40))}; this endpoint speaks ${[...LEGACY_VERSIONS].join(", ")} and 2026-07-28`,
      );
    }
    if (request.method === "POST")
      return this.#post(body, claims, header, externalBase(this.#host, request.url));
    if (request.method === "GET") return this.#stream(request, claims, header);
    if (request.method === "DELETE") {
      for (const stream of [...this.#streams]) if (stream.sessionId === header) stream.close();
      return new Response(null, { status: 200 });
    }
    return jsonRpcError(405, "AIRLOCK_MCP_BAD_REQUEST", "use POST, GET or DELETE", {
      allow: "GET, POST, DELETE",
    });
  }

  #open(sessionId: string, caller: { agent: string; token: TokenRecord }): Claims | null {
    if (sessionId.length > 1024) return null;
    const claims = this.#host.unseal(SEAL_PURPOSE, sessionId) as Partial<Claims> | null;
    if (claims === null || typeof claims !== "object") return null;
    if (claims.a !== caller.agent || claims.t !== caller.token.id) return null;
    if (typeof claims.c !== "string" || typeof claims.i !== "number") return null;
    if (Date.now() - claims.i > this.#limits.sessionTtlMs) return null;
    return claims as Claims;
  }

  #post(body: unknown, claims: Claims, sessionId: string, origin: string): Promise<Response> | Response {
    if (Array.isArray(body) || body === null || typeof body !== "object") {
      return jsonRpcError(
        400,
        "AIRLOCK_MCP_BAD_REQUEST",
        "send one JSON-RPC message per POST (batches are not accepted)",
      );
    }
    const message = body as JSONRPCMessage;
    if ("method" in message && message.method === "notifications/cancelled" && !("id" in message)) {
      const requestId = (message.params as { requestId?: unknown } | undefined)?.requestId;
      // Delivered to the instance running that call, when it runs in this process.
      this.#inflight.get(inflightKey(sessionId, requestId))?.onmessage?.(message);
      return new Response(null, { status: 202 });
    }
    if (!("method" in message) && "id" in message) {
      // The client's answer to an elicitation a call running here sent (per process, like a cancel).
      this.#asked.get(String(message.id))?.deliver(sessionId, message);
      return new Response(null, { status: 202 });
    }
    return this.#exchange(message, claims, sessionId, {}, origin);
  }

  async #exchange(
    message: JSONRPCMessage,
    claims: Claims,
    sessionId: string,
    headers: Record<string, string>,
    origin?: string,
  ): Promise<Response> {
    const server = createAgentMcpServer(this.#host, claims.a, this.#options, {
      era: "legacy",
      conversationId: claims.c,
      logLevel: () => this.#logLevel(claims),
      setLogLevel: (level) => this.#setLogLevel(claims, level),
      runs: this.#runs,
      ...(origin === undefined ? {} : { pagesOrigin: origin }),
    });
    const transport = new ExchangeTransport({ headers, sessionId, asked: this.#asked });
    await server.connect(transport);
    // This fresh instance learns what the client declared at initialize (its elicitation modes).
    if (claims.e !== undefined && !isInitialize(message)) await transport.prime(primer(claims));
    const key = "id" in message && "method" in message ? inflightKey(sessionId, message.id) : undefined;
    if (key !== undefined) this.#inflight.set(key, transport);
    void transport.finished.then(() => {
      if (key !== undefined && this.#inflight.get(key) === transport) this.#inflight.delete(key);
      return server.close();
    });
    return transport.handle(message);
  }

  async #logLevel(claims: Claims): Promise<LoggingLevel | undefined> {
    const stored = await this.#host.conversationSettings.get(claims.a, claims.c, LOG_LEVEL_KEY);
    return stored === null ? undefined : (JSON.parse(stored) as LoggingLevel);
  }

  async #setLogLevel(claims: Claims, level: LoggingLevel): Promise<void> {
    await this.#host.conversationSettings.set(claims.a, claims.c, LOG_LEVEL_KEY, JSON.stringify(level));
  }

  #stream(request: Request, claims: Claims, sessionId: string): Response {
    if (!(request.headers.get("accept") ?? "").includes("text/event-stream")) {
      return jsonRpcError(406, "AIRLOCK_MCP_BAD_REQUEST", "a GET stream needs Accept: text/event-stream");
    }
    const mine = [...this.#streams].filter((s) => s.tokenId === claims.t).length;
    if (mine >= this.#limits.perToken || this.#streams.size >= this.#limits.total) {
      const limit =
        mine >= this.#limits.perToken ? `${this.#limits.perToken} per token` : `${this.#limits.total} in all`;
      return jsonRpcError(
        429,
        "AIRLOCK_MCP_STREAM_LIMIT",
        `too many open MCP streams (at most ${limit}); close one before opening another`,
      );
    }
    let controller: ReadableStreamDefaultController<Uint8Array> | undefined;
    let timer: NodeJS.Timeout | undefined;
    let remove: (() => void) | undefined;
    let open = true;
    const entry: OpenStream = {
      tokenId: claims.t,
      sessionId,
      close: () => {
        if (!open) return;
        open = false;
        this.#streams.delete(entry);
        remove?.();
        if (timer !== undefined) clearInterval(timer);
        try {
          controller?.close();
        } catch {
          // already closed by the client going away: nothing left to end
        }
      },
    };
    const write = (text: string): boolean => {
      if (!open || controller === undefined) return false;
      try {
        controller.enqueue(encoder.encode(text));
        return true;
      } catch {
        entry.close();
        return false;
      }
    };
    const body = new ReadableStream<Uint8Array>({
      start: (c) => {
        controller = c;
        c.enqueue(encoder.encode(": connected\n\n"));
      },
      cancel: () => entry.close(),
    });
    this.#streams.add(entry);
    remove = this.#hub.add(claims.a, (notification) =>
      write(`event: message\ndata: ${JSON.stringify(notification)}\n\n`),
    );
    if (this.#limits.keepAliveMs > 0) {
      timer = setInterval(() => write(": ping\n\n"), this.#limits.keepAliveMs);
      timer.unref();
    }
    return new Response(body, {
      status: 200,
      headers: { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" },
    });
  }

  async close(): Promise<void> {
    for (const stream of [...this.#streams]) stream.close();
    await Promise.allSettled([...this.#inflight.values()].map((t) => t.close()));
    this.#inflight.clear();
  }
}

/** The client's protocol version and elicitation modes from its initialize (kept in the session). */
function declared(body: unknown): Pick<Claims, "v" | "e"> {
  const params = (
    body as { params?: { protocolVersion?: unknown; capabilities?: { elicitation?: unknown } } }
  ).params;
  const version =
    typeof params?.protocolVersion === "string" ? params.protocolVersion.slice(0, 20) : undefined;
  const e = params?.capabilities?.elicitation as { form?: unknown; url?: unknown } | undefined;
  if (e === undefined || e === null || typeof e !== "object")
    return version === undefined ? {} : { v: version };
  // A bare `elicitation: {}` is form support (the rule before modes existed).
  const modes = { f: e.form !== undefined || e.url === undefined, u: e.url !== undefined };
  return { ...(version === undefined ? {} : { v: version }), e: modes };
}

/** A synthetic initialize replaying what the session's client declared. */
function primer(claims: Claims): JSONRPCMessage {
  const elicitation = {
    ...(claims.e?.f === true ? { form: {} } : {}),
    ...(claims.e?.u === true ? { url: {} } : {}),
  };
  return {
    jsonrpc: "2.0",
    id: "airlock-session-primer",
    method: "initialize",
    params: {
      protocolVersion: claims.v ?? "2025-03-26",
      capabilities: { elicitation },
      clientInfo: { name: "airlock-session", version: "1" },
    },
  };
}

function isInitialize(body: unknown): boolean {
  return (
    body !== null &&
    typeof body === "object" &&
    !Array.isArray(body) &&
    (body as { method?: unknown }).method === "initialize" &&
    "id" in body
  );
}

function inflightKey(sessionId: string, requestId: unknown): string {
  return `${sessionId}\u0000${typeof requestId === "string" || typeof requestId === "number" ? String(requestId) : ""}`;
}
