// The host event stream as Server-Sent Events: `event: <type>`, `data: <JSON>`, `id: <n>`.
// Invariants: an agent token receives only its own agent's events (an operator may filter
// with ?agent=); every listener is removed when the client goes away; a client that stops
// reading is cut off after MAX_BUFFERED_EVENTS instead of growing the host's memory.
// The stream opens with a `: connected` comment, so a client knows it is subscribed.
import { z } from "zod";
import type { HostEventMap, HostEventType } from "../../host-types.ts";
import { apiError } from "../errors.ts";
import { defineRoute, type RouteSpec } from "../route-table.ts";
import { slug } from "../schemas.ts";

export const EVENT_TYPES: readonly HostEventType[] = [
  "tool.started",
  "tool.completed",
  "tool.failed",
  "permission.required",
  "tool.progress",
];
const MAX_BUFFERED_EVENTS = 1000;

const eventsQuery = z.strictObject({
  agent: slug.optional(),
  /** Comma-separated event types; default all. */
  types: z
    .string()
    .max(200)
    .transform((s) => s.split(",").map((t) => t.trim()))
    .pipe(z.array(z.enum(EVENT_TYPES as [HostEventType, ...HostEventType[]])))
    .optional(),
});

export interface EventStreamOptions {
  /** Interval of `: ping` comments keeping proxies from closing an idle stream (ms; 0 = none). */
  keepAliveMs: number;
  /** Open streams allowed at once on this app; more answer 429. */
  maxStreams: number;
}

export function eventRoutes(options: EventStreamOptions): RouteSpec[] {
  let open = 0;
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
        if (open >= options.maxStreams) {
          throw apiError(
            "AIRLOCK_API_TOO_MANY_STREAMS",
            `at most ${options.maxStreams} event streams at once`,
            {
              limit: options.maxStreams,
            },
          );
        }
        open++;
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
            for (const type of types) {
              unsubscribe.push(
                host.on(type, (event: HostEventMap[typeof type]) => {
                  if (agent !== undefined && event.agent !== agent) return;
                  send(`event: ${type}\nid: ${nextId++}\ndata: ${JSON.stringify(event)}\n\n`);
                }),
              );
            }
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
