// Unauthenticated routes: the health check and the OpenAPI document (built from the route
// table, including these two routes).
import { z } from "zod";
import { defineRoute, type RouteSpec } from "../route-table.ts";
import { healthResponse } from "../schemas.ts";

export function metaRoutes(document: () => Record<string, unknown>): RouteSpec[] {
  let cached: Record<string, unknown> | undefined;
  return [
    defineRoute({
      method: "get",
      path: "/healthz",
      operationId: "health",
      summary: "Liveness: answers while the host is running.",
      tag: "meta",
      access: "public",
      responses: { 200: { description: "The host is up.", schema: healthResponse } },
      async handler({ host }) {
        return { json: { status: "ok", version: host.version } };
      },
    }),
    defineRoute({
      method: "get",
      path: "/api/openapi.json",
      operationId: "openApiDocument",
      summary: "This API's OpenAPI 3.1 document.",
      tag: "meta",
      access: "public",
      responses: { 200: { description: "The OpenAPI document.", schema: z.record(z.string(), z.unknown()) } },
      async handler() {
        cached ??= document();
        return { json: cached };
      },
    }),
  ];
}
