// The host event stream as Server-Sent Events: `event: <type>`, `data: <JSON>`, `id: <n>`.
// Invariants: an agent token receives only its own agent's events (an operator may filter
// with ?agent=); every listener is removed when the client goes away; a client that stops
// reading is cut off after MAX_BUFFERED_EVENTS instead of growing the host's memory.
// The stream opens with a `: connected` comment, so a client knows it is subscribed.
// With replicas sharing a PostgreSQL store, a stream carries every replica's events, each
// naming the `replica` that served it (cluster/events.ts).
// Stream caps are per principal (each agent, and the operators together): one principal holds
// at most `maxStreamsPerPrincipal`, and agents together leave `operatorReserve` of `maxStreams`
// free, so no agent token can lock the operator out.
import { z } from "zod";
import type { StreamEventType } from "../../../contracts/events.ts";
import { STREAM_EVENT_TYPES } from "../../../index.ts";
import { apiError } from "../errors.ts";
import { defineRoute, type RouteSpec } from "../route-table.ts";
import { slug } from "../schemas.ts";

export const EVENT_TYPES: readonly StreamEventType[] = STREAM_EVENT_TYPES;
const MAX_BUFFERED_EVENTS = 1000;

const eventsQuery = z.strictObject({
  agent: slug.optional(),
  /** Comma-separated event types; default all. */
  types: z
    .string()
    .max(200)
    .transform((s) => s.split(",").map((t) => t.trim()))
    .pipe(z.array(z.enum(EVENT_TYPES as [StreamEventType, ...StreamEventType[]])))
    .optional(),
});

export interface EventStreamOptions {
  /** Interval of `: ping` comments keeping proxies from closing an idle stream (ms; 0 = none). */
  keepAliveMs: number;
  /** Open streams allowed at once on this app; more answer 429. */
  maxStreams: number;
  /** Streams one principal (an agent, or the operators together) may hold; default min(8, maxStreams). */
  maxStreamsPerPrincipal?: number;
  /** Streams agents together leave free for operators; default max(1, maxStreams / 8). */
  operatorReserve?: number;
}

export function eventRoutes(options: EventStreamOptions): RouteSpec[] {
  let open = 0;
  let agentsOpen = 0;
  const byPrincipal = new Map<string, number>();
  const perPrincipal = options.maxStreamsPerPrincipal ?? Math.min(8, options.maxStreams);
  const reserve = Math.min(
    options.operatorReserve ?? Math.max(1, Math.floor(options.maxStreams / 8)),
    options.maxStreams,
  );
  const refuse = (message: string, limit: number, scope: "principal" | "server") =>
    apiError("AIRLOCK_API_TOO_MANY_STREAMS", message, { limit, scope });
  return [
    defineRoute({
      method: "get",
      path: "/api/events",
      operationId: "streamEvents",
      summary:
        "Server-Sent Events of tool.started, tool.completed, tool.failed, permission.required and " +
        "tool.progress (each with toolName and presentation). Agent tokens see their own agent only.",
      tag: "events",
      access: "any-token",
      query: eventsQuery,
      responses: { 200: { description: "An endless text/event-stream.", mediaType: "text/event-stream" } },
      async handler({ host, token, query, c }) {
        let agent = query.agent;
        if (token?.role === "agent") {
          if (agent !== undefined && agent !== token.agent) {
            throw apiError("AIRLOCK_API_FORBIDDEN", "an agent token streams its own agent's events only");
          }
          agent = token.agent ?? "\u0000";
        }
        const isAgent = token?.role === "agent";
        const principal = isAgent ? `agent:${token?.agent ?? ""}` : "operator";
        const held = byPrincipal.get(principal) ?? 0;
        if (held >= perPrincipal) {
          throw refuse(
            `at most ${perPrincipal} event streams at once for one ${isAgent ? "agent" : "operator"}`,
            perPrincipal,
            "principal",
          );
        }
        if (open >= options.maxStreams || (isAgent && agentsOpen >= options.maxStreams - reserve)) {
          throw refuse(
            `at most ${options.maxStreams} event streams at once on this server`,
            options.maxStreams,
            "server",
          );
        }
        open++;
        if (isAgent) agentsOpen++;
        byPrincipal.set(principal, held + 1);
        const types = query.types ?? EVENT_TYPES;
        const encoder = new TextEncoder();
        const unsubscribe: Array<() => void> = [];
        let timer: NodeJS.Timeout | undefined;
        let closed = false;
        let nextId = 1;
        const stop = () => {
          if (closed) return;
          closed = true;
          open--;
          if (isAgent) agentsOpen--;
          const left = (byPrincipal.get(principal) ?? 1) - 1;
          if (left === 0) byPrincipal.delete(principal);
          else byPrincipal.set(principal, left);
          for (const off of unsubscribe) off();
          if (timer !== undefined) clearInterval(timer);
        };
        const body = new ReadableStream<Uint8Array>({
          start(controller) {
            const send = (text: string) => {
              if (closed) return;
              if ((controller.desiredSize ?? 0) < -MAX_BUFFERED_EVENTS) {
                stop();
                controller.enqueue(encoder.encode("event: overflow\ndata: {}\n\n"));
                controller.close();
                return;
              }
              controller.enqueue(encoder.encode(text));
            };
            unsubscribe.push(
              host.subscribeEvents(types, (type, event) => {
                if (agent !== undefined && event.agent !== agent) return;
                send(`event: ${type}\nid: ${nextId++}\ndata: ${JSON.stringify(event)}\n\n`);
              }),
            );
            if (options.keepAliveMs > 0) timer = setInterval(() => send(": ping\n\n"), options.keepAliveMs);
            c.req.raw.signal.addEventListener("abort", () => {
              if (closed) return;
              stop();
              controller.close();
            });
            send(": connected\n\n");
          },
          cancel() {
            stop();
          },
        });
        return new Response(body, {
          status: 200,
          headers: {
            "content-type": "text/event-stream; charset=utf-8",
            "cache-control": "no-cache",
            "x-accel-buffering": "no",
          },
        });
      },
    }),
  ];
}
