// What a load balancer and a monitoring system ask a replica: readiness (GET /readyz: 200 while
// it accepts work and reaches its store, 503 while draining or when the store does not answer)
// and Prometheus metrics (GET /metrics, operator token: the collector is created at the first
// scrape, so an unscraped host pays nothing; surfaces/http/metrics.ts). Liveness is /healthz.
import { z } from "zod";
import type { AirlockHost } from "../../../contracts/host.ts";
import { createHostMetrics, type HostMetrics } from "../metrics.ts";
import { defineRoute, type RouteSpec } from "../route-table.ts";

export interface OperationsOptions {
  /** False once the server started draining (SIGTERM): the balancer should stop sending work. */
  accepting: () => boolean;
  log: (error: unknown) => void;
}

const readyResponse = z.object({
  status: z.enum(["ready", "draining", "store_unreachable"]),
  replica: z.string(),
});

export function operationsRoutes(options: OperationsOptions): RouteSpec[] {
  const collectors = new WeakMap<AirlockHost, HostMetrics>();
  return [
    defineRoute({
      method: "get",
      path: "/readyz",
      operationId: "readiness",
      summary: "Readiness: 200 while this replica accepts work and reaches its store; 503 while draining.",
      tag: "meta",
      access: "public",
      responses: {
        200: { description: "Ready for traffic.", schema: readyResponse },
        503: { description: "Draining, or the store does not answer.", schema: readyResponse },
      },
      async handler({ host }) {
        if (!options.accepting()) return { status: 503, json: { status: "draining", replica: host.replica } };
        try {
          await host.getAgent("readyz-probe");
        } catch (error) {
          options.log(error);
          return { status: 503, json: { status: "store_unreachable", replica: host.replica } };
        }
        return { json: { status: "ready", replica: host.replica } };
      },
    }),
    defineRoute({
      method: "get",
      path: "/metrics",
      operationId: "metrics",
      summary:
        "Prometheus metrics of this replica: calls by outcome, latency histograms, refusals by code, " +
        "approvals pending, sandbox workers and restarts, open event streams.",
      tag: "meta",
      access: "operator",
      responses: { 200: { description: "Prometheus text exposition format.", mediaType: "text/plain" } },
      async handler({ host }) {
        let metrics = collectors.get(host);
        if (metrics === undefined) {
          metrics = createHostMetrics(host, (what, error) => options.log(new Error(what, { cause: error })));
          collectors.set(host, metrics);
        }
        return new Response(await metrics.render(), { headers: { "content-type": metrics.contentType } });
      },
    }),
  ];
}
