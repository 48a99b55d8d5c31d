// The MCP streamable-HTTP endpoint, mounted on the admin server at /mcp/:slug. Both protocol
// eras on one URL, from one server factory (server.ts): this file authenticates the request,
// reads its body and asks the SDK which era it speaks; the era's side answers it whole
// (era-2026/modern-http.ts for a request carrying the 2026-07-28 per-request envelope,
// era-2025/legacy-http.ts for the initialize-based revisions). Both share one run cache and one
// list-change hub per process.
// Invariants: every request is authenticated (the agent's token or an operator's) before any
// MCP parsing; no request needs anything a previous request left in this process, so any
// replica sharing the store answers any request; the protected-resource metadata
// (RFC 9728) is named by the 401's WWW-Authenticate header, except when the request sent a
// static bearer token that is not ours (then it is invalid_token only: challengeOf).
import { IncomingMessage, ServerResponse } from "node:http";
import { AirlockError } from "@airlock/sdk";
import { classifyInboundRequest } from "@modelcontextprotocol/server";
import type { Context, Hono } from "hono";
import type { AirlockHost } from "../../contracts/host.ts";
import type { TokenRecord } from "../../contracts/records.ts";
import { authenticateRequest, bearerChallenge, bearerToken, checkAccess } from "../http/auth.ts";
import { isAccessToken, verifyAccessToken } from "../http/authz/access.ts";
import { externalBase } from "../http/authz/config.ts";
import { apiError, toWireError } from "../http/errors.ts";
import type { ExtraPath } from "../http/openapi.ts";
import type { HttpCaller } from "./era.ts";
import { LegacyMcpHttp } from "./era-2025/legacy-http.ts";
import type { StreamLimits } from "./era-2025/streams.ts";
import type { LaneHeaders } from "./era-2026/fast-lane.ts";
import { ModernMcpHttp } from "./era-2026/modern-http.ts";
import { oneMessageRefusal, readJsonBody } from "./http-support.ts";
import { ListChangeHub } from "./list-changes.ts";
import { mountProtectedResource } from "./protected-resource.ts";
import { RunCache } from "./run-cache.ts";
import type { McpServerOptions } from "./server.ts";

export const MCP_PATH = "/mcp/:slug";
/** Largest MCP request body read (bytes). */
export const MAX_MCP_BODY_BYTES = 4 * 1024 * 1024;

export interface McpHttpOptions extends McpServerOptions {
  /** Caps on 2025-era GET streams (per token and in all); defaults in era-2025/streams.ts. */
  streams?: Partial<StreamLimits>;
  /** The endpoint object (shared with the server that closes it); made by mountMcpHttp otherwise. */
  endpoint?: McpHttpEndpoint;
}

/**
 * How the endpoint answered so far: 2026-07-28 requests in the fast lane and by the SDK's handler;
 * 2025 tools/call in the fast lane, and 2025 POSTs an instance answered.
 */
export interface McpHttpStats {
  modernLane: number;
  modernSdk: number;
  legacyLane: number;
  legacySdk: number;
}

/** What the endpoint keeps per process: each era's side, the run cache and the list-change hub. */
export class McpHttpEndpoint {
  readonly #host: AirlockHost;
  readonly #modern: ModernMcpHttp;
  readonly #hub: ListChangeHub;
  readonly #legacy: LegacyMcpHttp;
  readonly #runs: RunCache;

  constructor(host: AirlockHost, options: McpHttpOptions = {}) {
    const { streams, endpoint: _e, ...serverOptions } = options;
    this.#host = host;
    this.#runs = new RunCache(host);
    this.#modern = new ModernMcpHttp(host, serverOptions, this.#runs, MAX_MCP_BODY_BYTES);
    this.#hub = new ListChangeHub(host, (agent) => this.#modern.toolsChanged(agent));
    this.#legacy = new LegacyMcpHttp(host, serverOptions, this.#hub, streams ?? {}, this.#runs);
  }

  async handle(c: Context): Promise<Response> {
    const request = c.req.raw;
    const agent = c.req.param("slug") ?? "";
    const token = await this.#caller(c, agent);
    checkAccess(token, "agent-self", agent);
    // An agent's token acts for its own agent only (checkAccess) and goes with it (deleteAgent
    // deletes its tokens): only an operator's token needs the agent looked up (≈ 30 µs a call).
    if (token.role !== "agent" && (await this.#host.getAgent(agent)) === null) {
      throw apiError("AIRLOCK_API_UNKNOWN_AGENT", `no agent has slug ${JSON.stringify(agent)}`);
    }
    const caller: HttpCaller = { agent, token };
    const node = nodeExchangeOf(c);
    let body: unknown;
    if (request.method === "POST") {
      const read = await readJsonBody(request, MAX_MCP_BODY_BYTES, node?.incoming);
      if (!read.ok) return read.response;
      body = read.body;
      const refused = oneMessageRefusal(body);
      if (refused !== null) return refused;
    }
    const headers = standardHeaders(c, node);
    const lane = {
      headers,
      signal: () =>
        node === undefined ? { signal: request.signal, release: () => undefined } : gone(node.outgoing),
    };
    // A plain 2026-07-28 tools/call or tools/list: no routing needed (its headers and envelope name
    // the revision), answered in the fast lane (era-2026/fast-lane.ts).
    const fast = this.#modern.inLane(request, body, caller, lane);
    if (fast !== undefined) return fast;
    // The SDK's own routing (what its isLegacyRequest asks), from headers read off the Node request.
    const route = classifyInboundRequest({
      httpMethod: request.method.toUpperCase(),
      ...(headers.protocolVersion === undefined ? {} : { protocolVersionHeader: headers.protocolVersion }),
      ...(headers.mcpMethod === undefined ? {} : { mcpMethodHeader: headers.mcpMethod }),
      ...(headers.mcpName === undefined ? {} : { mcpNameHeader: headers.mcpName }),
      ...(body === undefined ? {} : { body }),
    });
    if (route.kind === "legacy") return this.#legacy.handle(request, body, caller);
    return this.#modern.handle(request, body, caller);
  }

  /**
   * The token of the request: an OAuth access token of the host's authorization server (bound to
   * this exact MCP URL, its audience), or an agent or operator token.
   */
  async #caller(c: Context, agent: string): Promise<TokenRecord> {
    const header = c.req.header("authorization");
    const bearer = bearerToken(header);
    if (bearer === null || !isAccessToken(bearer)) return authenticateRequest(this.#host, header);
    const resource = `${externalBase(this.#host, c.req.url)}/mcp/${encodeURIComponent(agent)}`;
    return verifyAccessToken(this.#host, bearer, resource);
  }

  stats(): McpHttpStats {
    const { modern, legacy } = { modern: this.#modern.answered, legacy: this.#legacy.answered };
    return { modernLane: modern.lane, modernSdk: modern.sdk, legacyLane: legacy.lane, legacySdk: legacy.sdk };
  }

  async close(): Promise<void> {
    this.#hub.close();
    this.#runs.close();
    await this.#legacy.close();
    await this.#modern.close();
  }
}

export function mountMcpHttp(app: Hono, host: AirlockHost, options: McpHttpOptions = {}): McpHttpEndpoint {
  const endpoint = options.endpoint ?? new McpHttpEndpoint(host, options);
  mountProtectedResource(app, host);
  app.all(MCP_PATH, async (c) => {
    try {
      return await endpoint.handle(c);
    } catch (error) {
      if (!(error instanceof AirlockError) || !CHALLENGED.has(error.code)) throw error;
      const wire = toWireError(error);
      return c.json(wire.body, 401, { "www-authenticate": challengeOf(host, c, error.code) });
    }
  });
  return endpoint;
}

/**
 * The Node request and response behind a Hono context (@hono/node-server), when the request's
 * body is still unread: its body and headers are read off it directly (the web Request's stream
 * and Headers cost ≈ 100 µs a call, bench row 0).
 */
function nodeExchangeOf(c: Context): { incoming: IncomingMessage; outgoing: ServerResponse } | undefined {
  const env = c.env as { incoming?: unknown; outgoing?: unknown } | undefined;
  const { incoming, outgoing } = env ?? {};
  if (!(incoming instanceof IncomingMessage) || !(outgoing instanceof ServerResponse)) return undefined;
  if (incoming.readableEnded || (incoming as { rawBody?: unknown }).rawBody !== undefined) return undefined;
  return { incoming, outgoing };
}

/** The revision's standard headers (MCP-Protocol-Version, Mcp-Method, Mcp-Name). */
function standardHeaders(c: Context, node: { incoming: IncomingMessage } | undefined): LaneHeaders {
  const header = (name: string): string | undefined => {
    if (node === undefined) return c.req.header(name);
    const value = node.incoming.headers[name];
    return Array.isArray(value) ? value.join(", ") : value;
  };
  return {
    protocolVersion: header("mcp-protocol-version"),
    mcpMethod: header("mcp-method"),
    mcpName: header("mcp-name"),
  };
}

/** A signal that aborts when the client closes the connection before its answer is written. */
function gone(outgoing: ServerResponse): { signal: AbortSignal; release(): void } {
  const controller = new AbortController();
  const onClose = () => {
    if (!outgoing.writableFinished) controller.abort(new DOMException("the client went away", "AbortError"));
  };
  outgoing.once("close", onClose);
  return { signal: controller.signal, release: () => outgoing.off("close", onClose) };
}

const CHALLENGED = new Set([
  "AIRLOCK_API_UNAUTHORIZED",
  "AIRLOCK_AUTHZ_TOKEN_INVALID",
  "AIRLOCK_AUTHZ_WRONG_AUDIENCE",
]);

/**
 * The 401's challenge. No token: RFC 9728, the resource's metadata (where OAuth starts). A
 * refused OAuth access token: the metadata and RFC 6750 §3.1 invalid_token (the client gets a new
 * one). A static bearer token that is not ours: invalid_token and no metadata, so a client shows
 * "invalid token" instead of starting an OAuth flow the user did not ask for.
 */
function challengeOf(host: AirlockHost, c: Context, code: string): string {
  const bearer = bearerToken(c.req.header("authorization"));
  if (bearer !== null && !isAccessToken(bearer)) return bearerChallenge(true);
  const base = externalBase(host, c.req.url);
  const metadata = `, resource_metadata="${base}/.well-known/oauth-protected-resource${new URL(c.req.url).pathname}"`;
  return bearerChallenge(code !== "AIRLOCK_API_UNAUTHORIZED" || bearer !== null, metadata);
}

/** The OpenAPI description of the MCP endpoint (added to the admin API's document). */
export const MCP_OPENAPI_PATH: ExtraPath = {
  path: "/mcp/{slug}",
  item: Object.fromEntries(
    ["post", "get", "delete"].map((method) => [
      method,
      {
        operationId: `mcp${method[0]?.toUpperCase()}${method.slice(1)}`,
        summary:
          "MCP streamable HTTP endpoint of one agent: the 2026-07-28 revision and the 2025 revisions (JSON-RPC; see docs/mcp.md).",
        tags: ["mcp"],
        "x-airlock-access": "agent-self",
        parameters: [{ name: "slug", in: "path", required: true, schema: { type: "string" } }],
        responses: {
          "200": { description: "A JSON-RPC response, or an SSE stream when the call streams." },
          "202": { description: "A notification was accepted." },
          "400": { description: "A malformed request, or a 2025 request without its session." },
          "401": {
            description:
              'Missing token (WWW-Authenticate names the resource metadata) or an invalid one (error="invalid_token").',
          },
          "404": {
            description: "Unknown agent (also any other agent's slug with an agent token) or MCP session.",
          },
          "429": { description: "Too many open streams for this token." },
        },
      },
    ]),
  ),
};
