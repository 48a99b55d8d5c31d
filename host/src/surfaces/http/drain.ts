// Graceful drain of an HTTP listener (SIGTERM on a replica): stop accepting connections,
// answer /readyz with 503, let requests in flight finish (tool calls, approvals waiting) up to
// a deadline, then close what is left (event streams never finish by themselves).
// Invariants: a request is in flight from its arrival until its response is written out
// (counted on the node:http server, not at the fetch handler, whose Response is still being
// written when it returns); event streams (GET requests answered with text/event-stream:
// /api/events, MCP notification streams) are not waited for, but a POST answered as SSE (an MCP
// tool call streaming its progress) is.
import type { IncomingMessage, Server, ServerResponse } from "node:http";

export interface InFlight {
  /** Starts counting the server's requests. */
  track(server: Server): void;
  accepting(): boolean;
  /** Stops accepting, waits for in-flight requests (at most `timeoutMs`), then closes every connection. */
  drain(server: Server, timeoutMs: number): Promise<{ unfinished: number }>;
}

const POLL_MS = 20;

export function createInFlight(): InFlight {
  const open = new Map<ServerResponse, string>();
  let accepting = true;
  const waitedFor = () =>
    [...open].filter(
      ([res, method]) =>
        method !== "GET" || !String(res.getHeader("content-type") ?? "").startsWith("text/event-stream"),
    ).length;
  return {
    track(server) {
      server.on("request", (req: IncomingMessage, res: ServerResponse) => {
        open.set(res, req.method ?? "GET");
        res.once("close", () => open.delete(res));
      });
    },
    accepting: () => accepting,
    async drain(server, timeoutMs) {
      accepting = false;
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      const deadline = Date.now() + timeoutMs;
      while (waitedFor() > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, POLL_MS));
      const unfinished = waitedFor();
      server.closeAllConnections();
      await closed;
      return { unfinished };
    },
  };
}
