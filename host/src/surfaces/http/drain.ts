// Graceful drain of an HTTP listener (SIGTERM on a replica): stop accepting connections,
// answer /readyz with 503, let requests in flight finish (tool calls, approvals waiting) up to
// a deadline; then have the host end the calls still running (`stopCalls`: each ends with
// AIRLOCK_HOST_CLOSED, a waiting approval is denied), so each of those requests is answered
// with its code, not cut; wait for those answers to be written (at most STOP_FLUSH_MS), and
// only then close what is left (event streams never finish by themselves).
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
  /**
   * Stops accepting, waits for in-flight requests (at most `timeoutMs`), then (when some are
   * left) runs `stopCalls` and waits for their answers (at most STOP_FLUSH_MS), then closes
   * every connection. `stopped`: requests left at the deadline; `unfinished`: left unanswered.
   */
  drain(
    server: Server,
    timeoutMs: number,
    stopCalls?: () => Promise<void>,
  ): Promise<{ stopped: number; unfinished: number }>;
}

const POLL_MS = 20;
/** How long the answers of calls ended by `stopCalls` may take to be written. */
const STOP_FLUSH_MS = 5000;

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
    async drain(server, timeoutMs, stopCalls) {
      accepting = false;
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      const settle = async (ms: number) => {
        const deadline = Date.now() + ms;
        while (waitedFor() > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, POLL_MS));
      };
      await settle(timeoutMs);
      const stopped = waitedFor();
      if (stopped > 0 && stopCalls !== undefined) {
        // A failure to stop leaves the calls to the connection cut below; the drain still ends.
        await stopCalls().catch((error: unknown) => void error);
        await settle(STOP_FLUSH_MS);
      }
      const unfinished = waitedFor();
      server.closeAllConnections();
      await closed;
      return { stopped, unfinished };
    },
  };
}
