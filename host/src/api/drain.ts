// Graceful drain of an HTTP listener (SIGTERM on a replica): stop accepting connections,
// answer /readyz with 503, let requests in flight finish (tool calls, approvals waiting) up to
// a deadline, then close what is left (event streams never finish by themselves).
// Invariants: a request is in flight from its arrival until its response is written out
// (counted on the node:http server, not at the fetch handler, whose Response is still being
// written when it returns); event streams (text/event-stream responses) are not waited for.
import type { Server, ServerResponse } from "node:http";

export interface InFlight {
  /** Starts counting the server's requests. */
  track(server: Server): void;
  accepting(): boolean;
  /** Stops accepting, waits for in-flight requests (at most `timeoutMs`), then closes every connection. */
  drain(server: Server, timeoutMs: number): Promise<{ unfinished: number }>;
}

const POLL_MS = 20;

export function createInFlight(): InFlight {
  const open = new Set<ServerResponse>();
  let accepting = true;
  const waitedFor = () =>
    [...open].filter((res) => !String(res.getHeader("content-type") ?? "").startsWith("text/event-stream"))
      .length;
  return {
    track(server) {
      server.on("request", (_req, res: ServerResponse) => {
        open.add(res);
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
