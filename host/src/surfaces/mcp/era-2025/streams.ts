// The 2025-era GET streams of one process: a session's notification stream (tool-list changes
// and task status, fanned out by list-changes.ts), as server-sent events with a keep-alive
// comment. Per process, and said so in docs/mcp.md: a client reconnects to any replica.
// Invariants: streams are capped per token and in all, and a client over a cap gets 429 with a
// code, never a silent eviction of someone else's stream; a closed stream is removed from the
// hub and the counts at once, whoever closed it (the client, DELETE, the host).
import { jsonRpcError } from "../http-support.ts";
import type { ListChangeHub } from "../list-changes.ts";
import type { Claims } from "./session.ts";

/** Caps and timings of the GET streams (and of the sessions they belong to). */
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

export const DEFAULT_LIMITS: StreamLimits = {
  perToken: 8,
  total: 256,
  keepAliveMs: 15_000,
  sessionTtlMs: 24 * 60 * 60 * 1000,
};

interface OpenStream {
  tokenId: string;
  sessionId: string;
  close: () => void;
}

const encoder = new TextEncoder();

export class SessionStreams {
  readonly #hub: ListChangeHub;
  readonly #limits: StreamLimits;
  readonly #streams = new Set<OpenStream>();

  constructor(hub: ListChangeHub, limits: StreamLimits) {
    this.#hub = hub;
    this.#limits = limits;
  }

  /** Opens the session's stream (GET), or answers why not (406, 429). */
  open(request: Request, claims: Claims, sessionId: string): Response {
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

  /** Ends this process's streams of one session (DELETE). */
  closeSession(sessionId: string): void {
    for (const stream of [...this.#streams]) if (stream.sessionId === sessionId) stream.close();
  }

  close(): void {
    for (const stream of [...this.#streams]) stream.close();
  }
}
