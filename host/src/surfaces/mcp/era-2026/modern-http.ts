// The 2026-07-28 side of the MCP HTTP endpoint (http.ts hands it every request that carries the
// per-request envelope): one SDK handler per agent (createMcpHandler, which answers
// server/discover, subscriptions/listen and the rest from the server factory), each with its own
// event bus so that a list change reaches only that agent's listen streams. The tasks
// extension's tasks/get and tasks/cancel are answered from the store before the SDK sees them
// (tasks.ts). There is no session: a request names its conversation in
// `_meta["airlock/conversationId"]`, or the token's own is used.
// Invariants: nothing a later request needs is kept here (the handlers and buses are per agent,
// not per client), so any replica sharing the store answers any request; listen streams are
// capped per agent per process (MAX_LISTEN_STREAMS_PER_AGENT).
import {
  type AuthInfo,
  createMcpHandler,
  InMemoryServerEventBus,
  type McpHttpHandler,
} from "@modelcontextprotocol/server";
import type { AirlockHost } from "../../../contracts/host.ts";
import { externalBase } from "../../http/authz/config.ts";
import type { EraHttp, HttpCaller } from "../era.ts";
import type { RunCache } from "../run-cache.ts";
import { createAgentMcpServer, type McpServerOptions } from "../server.ts";
import type { CallUnit } from "../tools-call.ts";
import { ERA_2026 } from "./era.ts";
import { answerInLane, type LaneHeaders, type LaneRequest, laneRequest } from "./fast-lane.ts";
import { answerModernTaskRequest } from "./tasks.ts";

/** What the endpoint hands over for the fast lane: the standard headers, and the client-gone signal. */
export interface LaneInput {
  headers: LaneHeaders;
  /** A signal that aborts when the client goes away, and how to stop watching for it. */
  signal(): { signal: AbortSignal; release(): void };
}

/** Open `subscriptions/listen` streams (2026-07-28) per agent on one process. */
export const MAX_LISTEN_STREAMS_PER_AGENT = 64;

const CONVERSATION = /^[A-Za-z0-9._:-]{1,128}$/;

export class ModernMcpHttp implements EraHttp {
  readonly #host: AirlockHost;
  readonly #options: McpServerOptions;
  readonly #runs: RunCache;
  readonly #maxBodyBytes: number;
  readonly #handlers = new Map<string, { handler: McpHttpHandler; bus: InMemoryServerEventBus }>();
  /** Requests answered in the fast lane, and by the SDK handler. */
  readonly answered = { lane: 0, sdk: 0 };

  constructor(host: AirlockHost, options: McpServerOptions, runs: RunCache, maxBodyBytes: number) {
    this.#host = host;
    this.#options = options;
    this.#runs = runs;
    this.#maxBodyBytes = maxBodyBytes;
  }

  /**
   * The answer when the request takes the fast lane (its revision's headers and envelope make it
   * a 2026-07-28 request, whatever else the SDK's classifier would look at), else undefined.
   */
  inLane(
    request: Request,
    body: unknown,
    caller: HttpCaller,
    lane: LaneInput,
  ): Promise<Response> | undefined {
    const fast = this.#options.fastLane === false ? undefined : laneRequest(lane.headers, body);
    if (fast === undefined) return undefined;
    this.answered.lane++;
    return this.#inLane(request, body, caller, fast, lane);
  }

  /** Everything the fast lane does not take (http.ts asked `inLane` first). */
  async handle(request: Request, body: unknown, caller: HttpCaller): Promise<Response> {
    const { agent, token } = caller;
    this.answered.sdk++;
    const taskAnswer = await answerModernTaskRequest(this.#host, agent, body);
    if (taskAnswer !== undefined) return Response.json(taskAnswer);
    const authInfo: AuthInfo = {
      token: token.id,
      clientId: token.agent ?? "operator",
      scopes: [],
      extra: {
        agent,
        tokenId: token.id,
        conversationId: modernConversation(body, token.id),
        // the pages the person is sent to: on the operator's public URL when one is set (a proxy)
        pagesOrigin: externalBase(this.#host, request.url),
      },
    };
    return this.#handler(agent).fetch(request, { authInfo, parsedBody: body });
  }

  /** tools/call and tools/list the plain way: without a server instance (fast-lane.ts). */
  async #inLane(
    request: Request,
    body: unknown,
    caller: HttpCaller,
    fast: LaneRequest,
    lane: LaneInput,
  ): Promise<Response> {
    const { agent, token } = caller;
    const unit: CallUnit = {
      host: this.#host,
      agent,
      era: ERA_2026,
      options: this.#options,
      caller: {
        era: "modern",
        conversationId: modernConversation(body, token.id),
        runs: this.#runs,
        pagesOrigin: externalBase(this.#host, request.url),
      },
    };
    const serverInfo = { name: this.#options.serverName ?? "airlock", version: this.#host.version };
    const { signal, release } = lane.signal();
    try {
      return await answerInLane(unit, serverInfo, fast, signal);
    } finally {
      release();
    }
  }

  /**
   * Tells the listen streams of `agent` (null: of every agent) that its tool list changed, and
   * with it its resource list (the UIs of the served tools, MCP Apps).
   */
  toolsChanged(agent: string | null): void {
    const buses =
      agent === null ? [...this.#handlers.values()].map((h) => h.bus) : [this.#handlers.get(agent)?.bus];
    for (const bus of buses) {
      bus?.publish({ kind: "tools_list_changed" });
      bus?.publish({ kind: "resources_list_changed" });
    }
  }

  #handler(agent: string): McpHttpHandler {
    const existing = this.#handlers.get(agent);
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
        maxRequestBodySize: this.#maxBodyBytes,
        onerror: () => undefined,
      },
    );
    this.#handlers.set(agent, { handler, bus });
    return handler;
  }

  async close(): Promise<void> {
    await Promise.allSettled([...this.#handlers.values()].map(({ handler }) => handler.close()));
    this.#handlers.clear();
  }
}

/**
 * The conversation of a 2026-07-28 request (no session exists): the client may name one in
 * `_meta["airlock/conversationId"]`; otherwise each token has its own, stable across requests.
 */
function modernConversation(body: unknown, tokenId: string): string {
  const meta = (body as { params?: { _meta?: Record<string, unknown> } } | undefined)?.params?._meta;
  const named = meta?.["airlock/conversationId"];
  if (typeof named === "string" && CONVERSATION.test(named)) return `mcp:${named}`;
  return `mcp-token-${tokenId}`;
}
