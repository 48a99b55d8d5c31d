// The 2025-era (initialize-based) side of the MCP HTTP endpoint, served without server-side
// sessions: `initialize` mints a session id that is the session itself, sealed under the host's
// master key (session.ts), so any replica sharing the key opens it and no request needs the
// process that answered the last one. Each POST is answered by a fresh server instance over one
// exchange (exchange-transport.ts): plain JSON, or SSE when the call streams progress or logs.
// GET opens the session's notification stream (streams.ts); DELETE ends this process's streams
// of the session.
// Per-process, and said so in docs/mcp.md: open GET streams (a client reconnects to any replica)
// and the requests in flight here (a `notifications/cancelled` cancels a call only when it
// reaches the process running it, and so does the client's answer to an elicitation).
// Invariants: a session id opens only for the agent and token that initialized it, within its
// lifetime; a request without a session, with a session this host cannot open, or naming a
// revision this endpoint does not speak gets a JSON-RPC error with its code, never a server.
import type { JSONRPCMessage } from "@modelcontextprotocol/server";
import type { AirlockHost } from "../../../contracts/host.ts";
import { externalBase } from "../../http/authz/config.ts";
import type { EraHttp, HttpCaller } from "../era.ts";
import { jsonRpcError } from "../http-support.ts";
import type { ListChangeHub } from "../list-changes.ts";
import type { RunCache } from "../run-cache.ts";
import { createAgentMcpServer, type McpCallerContext, type McpServerOptions } from "../server.ts";
import type { CallUnit } from "../tools-call.ts";
import { ERA_2025 } from "./era.ts";
import { ExchangeTransport } from "./exchange-transport.ts";
import { answerInLegacyLane, type LegacyLaneCall, legacyLaneCall } from "./fast-lane.ts";
import {
  type Claims,
  isInitialize,
  LEGACY_VERSIONS,
  mintSession,
  openSession,
  primer,
  sessionLogLevel,
  setSessionLogLevel,
} from "./session.ts";
import { DEFAULT_LIMITS, SessionStreams, type StreamLimits } from "./streams.ts";

export class LegacyMcpHttp implements EraHttp {
  readonly #host: AirlockHost;
  readonly #options: McpServerOptions;
  readonly #limits: StreamLimits;
  readonly #streams: SessionStreams;
  readonly #inflight = new Map<string, ExchangeTransport>();
  /** Requests (elicitations) calls running here sent, by their wire id, until answered or ended. */
  readonly #asked = new Map<string, ExchangeTransport>();
  readonly #runs: RunCache;
  /** tools/call answered in the fast lane, and POSTs answered by an instance (initialize aside). */
  readonly answered = { lane: 0, sdk: 0 };

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
    this.#limits = { ...DEFAULT_LIMITS, ...limits };
    this.#streams = new SessionStreams(hub, this.#limits);
  }

  async handle(request: Request, body: unknown, caller: HttpCaller): Promise<Response> {
    const header = request.headers.get("mcp-session-id");
    const who = { agent: caller.agent, tokenId: caller.token.id };
    if (request.method === "POST" && isInitialize(body)) {
      const { claims, sessionId } = mintSession(this.#host, who, body);
      return this.#exchange(body as JSONRPCMessage, claims, sessionId, { "mcp-session-id": sessionId });
    }
    if (header === null) {
      return jsonRpcError(
        400,
        "AIRLOCK_MCP_SESSION_REQUIRED",
        "send initialize first (POST), then send its Mcp-Session-Id with every request",
      );
    }
    const claims = openSession(this.#host, header, who, this.#limits.sessionTtlMs);
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
    if (request.method === "GET") return this.#streams.open(request, claims, header);
    if (request.method === "DELETE") {
      this.#streams.closeSession(header);
      return new Response(null, { status: 200 });
    }
    return jsonRpcError(405, "AIRLOCK_MCP_BAD_REQUEST", "use POST, GET or DELETE", {
      allow: "GET, POST, DELETE",
    });
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
    const lane = this.#options.fastLane === false ? undefined : legacyLaneCall(message, claims);
    if (lane !== undefined) return this.#inLane(lane, message, claims, sessionId, origin);
    this.answered.sdk++;
    return this.#exchange(message, claims, sessionId, {}, origin);
  }

  /** A plain tools/call, without a server instance (fast-lane.ts). */
  #inLane(
    lane: LegacyLaneCall,
    message: JSONRPCMessage,
    claims: Claims,
    sessionId: string,
    origin: string,
  ): Promise<Response> {
    this.answered.lane++;
    const unit: CallUnit = {
      host: this.#host,
      agent: claims.a,
      era: ERA_2025,
      options: this.#options,
      caller: this.#callerOf(claims, origin),
    };
    const transport = new ExchangeTransport({ sessionId, asked: this.#asked });
    const key = inflightKey(sessionId, lane.id);
    this.#inflight.set(key, transport);
    void transport.finished.then(() => {
      if (this.#inflight.get(key) === transport) this.#inflight.delete(key);
    });
    const response = transport.handle(message);
    answerInLegacyLane(unit, lane, transport);
    return response;
  }

  /** What a server instance (or the lane) knows of the session's caller. */
  #callerOf(claims: Claims, origin: string | undefined): McpCallerContext {
    return {
      era: "legacy",
      conversationId: claims.c,
      logLevel: () => sessionLogLevel(this.#host, claims),
      setLogLevel: (level) => setSessionLogLevel(this.#host, claims, level),
      runs: this.#runs,
      ...(origin === undefined ? {} : { pagesOrigin: origin }),
    };
  }

  async #exchange(
    message: JSONRPCMessage,
    claims: Claims,
    sessionId: string,
    headers: Record<string, string>,
    origin?: string,
  ): Promise<Response> {
    const server = createAgentMcpServer(this.#host, claims.a, this.#options, this.#callerOf(claims, origin));
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

  async close(): Promise<void> {
    this.#streams.close();
    await Promise.allSettled([...this.#inflight.values()].map((t) => t.close()));
    this.#inflight.clear();
  }
}

function inflightKey(sessionId: string, requestId: unknown): string {
  return `${sessionId}\u0000${typeof requestId === "string" || typeof requestId === "number" ? String(requestId) : ""}`;
}
