// The MCP streamable-HTTP endpoint, mounted on the admin server at /mcp/:slug. Both protocol
// eras on one URL, from one server factory (server.ts): a request carrying the 2026-07-28
// per-request envelope goes to the SDK's own handler (one per agent, so list changes reach only
// that agent's listen streams); a 2025-era request goes to era-2025/legacy-http.ts.
// Invariants: every request is authenticated (the agent's token or an operator's) before any
// MCP parsing; no request needs anything a previous request left in this process, so any
// replica sharing the store answers any request; the protected-resource metadata
// (RFC 9728) is named by the 401's WWW-Authenticate header.
import { AirlockError } from "@airlock/sdk";
import {
  type AuthInfo,
  createMcpHandler,
  InMemoryServerEventBus,
  isLegacyRequest,
  type McpHttpHandler,
} from "@modelcontextprotocol/server";
import type { Context, Hono } from "hono";
import type { AirlockHost } from "../../contracts/host.ts";
import type { TokenRecord } from "../../state/store/types.ts";
import { authenticateRequest, bearerToken, checkAccess } from "../http/auth.ts";
import { isAccessToken, verifyAccessToken } from "../http/authz/access.ts";
import { externalBase } from "../http/authz/config.ts";
import { apiError, toWireError } from "../http/errors.ts";
import type { ExtraPath } from "../http/openapi.ts";
import { LegacyMcpHttp } from "./era-2025/legacy-http.ts";
import type { StreamLimits } from "./era-2025/streams.ts";
import { answerModernTaskRequest } from "./era-2026/tasks.ts";
import { readJsonBody } from "./http-support.ts";
import { ListChangeHub } from "./list-changes.ts";
import { mountProtectedResource } from "./protected-resource.ts";
import { RunCache } from "./run-cache.ts";
import { createAgentMcpServer, type McpServerOptions } from "./server.ts";

export const MCP_PATH = "/mcp/:slug";
/** Open `subscriptions/listen` streams (2026-07-28) per agent on one process. */
export const MAX_LISTEN_STREAMS_PER_AGENT = 64;
/** Largest MCP request body read (bytes). */
export const MAX_MCP_BODY_BYTES = 4 * 1024 * 1024;

export interface McpHttpOptions extends McpServerOptions {
  /** Caps on 2025-era GET streams (per token and in all); defaults in era-2025/streams.ts. */
  streams?: Partial<StreamLimits>;
  /** The endpoint object (shared with the server that closes it); made by mountMcpHttp otherwise. */
  endpoint?: McpHttpEndpoint;
}

interface Caller {
  agent: string;
  token: TokenRecord;
}

/** What the endpoint keeps per process: per-agent modern handlers and the list-change hub. */
export class McpHttpEndpoint {
  readonly #host: AirlockHost;
  readonly #options: McpServerOptions;
  readonly #modern = new Map<string, { handler: McpHttpHandler; bus: InMemoryServerEventBus }>();
  readonly #hub: ListChangeHub;
  readonly #legacy: LegacyMcpHttp;
  readonly #runs: RunCache;

  constructor(host: AirlockHost, options: McpHttpOptions = {}) {
    const { streams, endpoint: _e, ...serverOptions } = options;
    this.#host = host;
    this.#options = serverOptions;
    this.#runs = new RunCache(host);
    this.#hub = new ListChangeHub(host, (agent) => {
      if (agent === null)
        for (const { bus } of this.#modern.values()) bus.publish({ kind: "tools_list_changed" });
      else this.#modern.get(agent)?.bus.publish({ kind: "tools_list_changed" });
    });
    this.#legacy = new LegacyMcpHttp(host, serverOptions, this.#hub, streams ?? {}, this.#runs);
  }

  async handle(c: Context): Promise<Response> {
    const request = c.req.raw;
    const agent = c.req.param("slug") ?? "";
    const token = await this.#caller(c, agent);
    checkAccess(token, "agent-self", agent);
    if ((await this.#host.getAgent(agent)) === null) {
      throw apiError("AIRLOCK_API_UNKNOWN_AGENT", `no agent has slug ${JSON.stringify(agent)}`);
    }
    const caller: Caller = { agent, token };
    let body: unknown;
    if (request.method === "POST") {
      const read = await readJsonBody(request, MAX_MCP_BODY_BYTES);
      if (!read.ok) return read.response;
      body = read.body;
    }
    if (await isLegacyRequest(request, body)) return this.#legacy.handle(request, body, caller);
    const taskAnswer = await answerModernTaskRequest(this.#host, agent, body);
    if (taskAnswer !== undefined) return Response.json(taskAnswer);
    const authInfo: AuthInfo = {
      token: token.id,
      clientId: token.agent ?? "operator",
      scopes: [],
      extra: {
        agent,
        tokenId: token.id,
        conversationId: modernConversation(body, token),
        // the pages the person is sent to: on the operator's public URL when one is set (a proxy)
        pagesOrigin: externalBase(this.#host, request.url),
      },
    };
    return this.#modernHandler(agent).fetch(request, { authInfo, parsedBody: body });
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

  #modernHandler(agent: string): McpHttpHandler {
    const existing = this.#modern.get(agent);
    if (existing !== undefined) return existing.handler;
    const bus = new InMemoryServerEventBus();
    const handler = createMcpHandler(
      ({ era, authInfo }) => {
        const extra = authInfo?.extra as { conversationId?: string; pagesOrigin?: string } | undefined;
        return createAgentMcpServer(this.#host, agent, this.#options, {
          era,
          conversationId: extra?.conversationId ?? `mcp-${agent}`,
          runs: this.#runs,
          ...(extra?.pagesOrigin === undefined ? {} : { pagesOrigin: extra.pagesOrigin }),
        });
      },
      {
        legacy: "reject",
        bus,
        maxSubscriptions: MAX_LISTEN_STREAMS_PER_AGENT,
        maxRequestBodySize: MAX_MCP_BODY_BYTES,
        onerror: () => undefined,
      },
    );
    this.#modern.set(agent, { handler, bus });
    return handler;
  }

  async close(): Promise<void> {
    this.#hub.close();
    this.#runs.close();
    await this.#legacy.close();
    await Promise.allSettled([...this.#modern.values()].map(({ handler }) => handler.close()));
    this.#modern.clear();
  }
}

const CONVERSATION = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * The conversation of a 2026-07-28 request (no session exists): the client may name one in
 * `_meta["airlock/conversationId"]`; otherwise each token has its own, stable across requests.
 */
function modernConversation(body: unknown, token: TokenRecord): string {
  const meta = (body as { params?: { _meta?: Record<string, unknown> } } | undefined)?.params?._meta;
  const named = meta?.["airlock/conversationId"];
  if (typeof named === "string" && CONVERSATION.test(named)) return `mcp:${named}`;
  return `mcp-token-${token.id}`;
}

export function mountMcpHttp(app: Hono, host: AirlockHost, options: McpHttpOptions = {}): McpHttpEndpoint {
  const endpoint = options.endpoint ?? new McpHttpEndpoint(host, options);
  mountProtectedResource(app, host);
  app.all(MCP_PATH, async (c) => {
    try {
      return await endpoint.handle(c);
    } catch (error) {
      if (!(error instanceof AirlockError) || !CHALLENGED.has(error.code)) throw error;
      // RFC 9728: the challenge points the client at the resource's metadata; RFC 6750 §3.1: a
      // refused OAuth access token is named invalid_token.
      const wire = toWireError(error);
      const invalid = error.code !== "AIRLOCK_API_UNAUTHORIZED";
      const challenge = wwwAuthenticate(externalBase(host, c.req.url), new URL(c.req.url), invalid);
      return c.json(wire.body, 401, { "www-authenticate": challenge });
    }
  });
  return endpoint;
}

const CHALLENGED = new Set([
  "AIRLOCK_API_UNAUTHORIZED",
  "AIRLOCK_AUTHZ_TOKEN_INVALID",
  "AIRLOCK_AUTHZ_WRONG_AUDIENCE",
]);

function wwwAuthenticate(base: string, url: URL, invalidToken: boolean): string {
  const error = invalidToken ? ', error="invalid_token"' : "";
  return `Bearer realm="airlock", resource_metadata="${base}/.well-known/oauth-protected-resource${url.pathname}"${error}`;
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
          "401": { description: "Missing or unknown token (WWW-Authenticate names the resource metadata)." },
          "403": { description: "A token of another agent." },
          "404": { description: "Unknown agent or MCP session." },
          "429": { description: "Too many open streams for this token." },
        },
      },
    ]),
  ),
};
