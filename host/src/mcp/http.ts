// The MCP streamable-HTTP endpoint, mounted on the admin server at /mcp/:slug. One MCP session
// = one WebStandardStreamableHTTPServerTransport + one agent MCP server, kept in a registry.
// Invariants: every request (initialize or not) is authenticated with the agent's token or an
// operator token; a session is bound to the agent and the token that created it, and answers
// 404 to anyone else; DNS-rebinding protection is the admin app's host guard (same server);
// the registry is bounded per token and overall (oldest closed first) and idle sessions are reaped.
import { randomUUID } from "node:crypto";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { Hono } from "hono";
import { authenticateRequest, checkAccess } from "../api/auth.ts";
import { apiError } from "../api/errors.ts";
import type { ExtraPath } from "../api/openapi.ts";
import type { AirlockHost } from "../host-types.ts";
import type { MCP_ERRORS } from "./errors.ts";
import { createAgentMcpServer, type McpServerOptions } from "./server.ts";

export const MCP_PATH = "/mcp/:slug";
export const MAX_SESSIONS = 256;
export const MAX_SESSIONS_PER_TOKEN = 32;
export const SESSION_IDLE_MS = 30 * 60 * 1000;

export interface Session {
  transport: WebStandardStreamableHTTPServerTransport;
  close: () => Promise<void>;
  agent: string;
  tokenId: string;
  lastSeen: number;
}

export interface SessionLimits {
  maxSessions: number;
  maxPerToken: number;
  idleMs: number;
}

/**
 * The live MCP sessions of one admin server; `closeAll` ends them (server shutdown). Bounded:
 * idle sessions are reaped when a session is added; one token holds at most `maxPerToken`
 * (its own oldest is closed first, so one token cannot evict another's sessions), and the
 * whole registry at most `maxSessions` (the oldest overall is closed).
 */
export class McpSessionRegistry {
  readonly #sessions = new Map<string, Session>();
  readonly #log: (error: unknown) => void;
  readonly #limits: SessionLimits;

  constructor(
    log: (error: unknown) => void = (error) => console.error("airlock mcp:", error),
    limits: Partial<SessionLimits> = {},
  ) {
    this.#log = log;
    this.#limits = {
      maxSessions: limits.maxSessions ?? MAX_SESSIONS,
      maxPerToken: limits.maxPerToken ?? MAX_SESSIONS_PER_TOKEN,
      idleMs: limits.idleMs ?? SESSION_IDLE_MS,
    };
  }

  get size(): number {
    return this.#sessions.size;
  }

  get(id: string): Session | undefined {
    return this.#sessions.get(id);
  }

  add(id: string, session: Session, now: number): void {
    for (const [key, s] of this.#sessions) if (now - s.lastSeen > this.#limits.idleMs) this.#drop(key, s);
    const own = [...this.#sessions].filter(([, s]) => s.tokenId === session.tokenId);
    for (const [key, s] of own.slice(0, Math.max(0, own.length - this.#limits.maxPerToken + 1)))
      this.#drop(key, s);
    for (const [key, s] of this.#sessions) {
      if (this.#sessions.size < this.#limits.maxSessions) break;
      this.#drop(key, s);
    }
    this.#sessions.set(id, session);
  }

  remove(id: string): void {
    this.#sessions.delete(id);
  }

  #drop(id: string, session: Session): void {
    this.#sessions.delete(id);
    session.close().catch((error: unknown) => this.#log(error));
  }

  async closeAll(): Promise<void> {
    const all = [...this.#sessions.values()];
    this.#sessions.clear();
    await Promise.allSettled(all.map((s) => s.close()));
  }
}

function jsonRpcError(status: number, code: keyof typeof MCP_ERRORS, message: string): Response {
  return Response.json(
    { jsonrpc: "2.0", error: { code: -32000, message, data: { code } }, id: null },
    { status },
  );
}

export interface McpHttpOptions extends McpServerOptions {
  sessions?: McpSessionRegistry;
}

export function mountMcpHttp(app: Hono, host: AirlockHost, options: McpHttpOptions = {}): McpSessionRegistry {
  const sessions = options.sessions ?? new McpSessionRegistry(options.log);
  app.all(MCP_PATH, async (c) => {
    const token = await authenticateRequest(host, c.req.header("authorization"));
    const slug = c.req.param("slug");
    checkAccess(token, "agent-self", slug);
    if ((await host.getAgent(slug)) === null) {
      throw apiError("AIRLOCK_API_UNKNOWN_AGENT", `no agent has slug ${JSON.stringify(slug)}`);
    }
    const sessionId = c.req.header("mcp-session-id");
    if (sessionId !== undefined) {
      const session = sessions.get(sessionId);
      if (session === undefined || session.agent !== slug || session.tokenId !== token.id) {
        return jsonRpcError(
          404,
          "AIRLOCK_MCP_SESSION_NOT_FOUND",
          "unknown MCP session; initialize a new one",
        );
      }
      session.lastSeen = Date.now();
      return session.transport.handleRequest(c.req.raw);
    }
    if (c.req.method !== "POST") {
      return jsonRpcError(
        400,
        "AIRLOCK_MCP_SESSION_REQUIRED",
        "send initialize first (POST), then use its session",
      );
    }
    const id = randomUUID();
    const server = createAgentMcpServer(host, slug, { ...options, conversationId: `mcp-${id}` });
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => id,
      onsessioninitialized: () => {
        sessions.add(
          id,
          { transport, close: () => server.close(), agent: slug, tokenId: token.id, lastSeen: Date.now() },
          Date.now(),
        );
      },
      onsessionclosed: () => sessions.remove(id),
    });
    await server.connect(transport);
    const response = await transport.handleRequest(c.req.raw);
    // Not an initialize request (or a malformed one): no session was created; free the pair.
    if (sessions.get(id) === undefined) await server.close();
    return response;
  });
  return sessions;
}

/** The OpenAPI description of the MCP endpoint (added to the admin API's document). */
export const MCP_OPENAPI_PATH: ExtraPath = {
  path: "/mcp/{slug}",
  item: Object.fromEntries(
    ["post", "get", "delete"].map((method) => [
      method,
      {
        operationId: `mcp${method[0]?.toUpperCase()}${method.slice(1)}`,
        summary: "MCP streamable HTTP endpoint of one agent (JSON-RPC; see docs/mcp.md).",
        tags: ["mcp"],
        "x-airlock-access": "agent-self",
        parameters: [{ name: "slug", in: "path", required: true, schema: { type: "string" } }],
        responses: {
          "200": { description: "A JSON-RPC response or an SSE stream of them." },
          "401": { description: "Missing or unknown token." },
          "403": { description: "A token of another agent." },
          "404": { description: "Unknown agent or MCP session." },
        },
      },
    ]),
  ),
};
