// The shape of one admin API route. The same table is what app.ts registers on hono and what
// openapi.ts describes, so the OpenAPI document cannot drift from the routes that exist.
// Invariants: a handler runs only after its access rule passed and its params, query and body
// parsed against the route's schemas; it returns plain JSON (or a Response for streams).
import type { Context } from "hono";
import type { z } from "zod";
import type { AirlockHost } from "../../contracts/host.ts";
import type { TokenRecord } from "../../contracts/records.ts";

export type HttpMethod = "get" | "post" | "put" | "patch" | "delete";

/**
 * Who may call a route:
 * - `public`: no token (health, the OpenAPI document);
 * - `operator`: an operator token;
 * - `agent-self`: an operator token, or the agent token of the agent named by `:slug`;
 * - `any-token`: any valid token (the handler narrows what an agent token sees).
 */
export type Access = "public" | "operator" | "agent-self" | "any-token";

export interface RouteResponse {
  description: string;
  schema?: z.ZodType;
  /** A media type other than application/json (text/event-stream for SSE). */
  mediaType?: string;
}

export interface RouteInput<P, Q, B> {
  host: AirlockHost;
  /** The caller's token; null only on public routes. */
  token: TokenRecord | null;
  params: P;
  query: Q;
  body: B;
  /** The raw body when the route accepts one and the request sent `application/octet-stream`. */
  raw: Uint8Array | null;
  c: Context;
}

export interface HandlerResult {
  status?: number;
  json: unknown;
}

export interface RouteSpec<
  P extends z.ZodType = z.ZodType,
  Q extends z.ZodType = z.ZodType,
  B extends z.ZodType = z.ZodType,
> {
  method: HttpMethod;
  /** hono path syntax: `/api/agents/:slug/tools`. */
  path: string;
  operationId: string;
  summary: string;
  tag: string;
  access: Access;
  params?: P;
  query?: Q;
  body?: B;
  /** The body may be absent (treated as `{}`). */
  bodyOptional?: boolean;
  /** Also accept a raw `application/octet-stream` body (handed over as `raw`, body is then `{}`). */
  rawBody?: { description: string };
  /** Maximum body size in bytes (default: the app's `maxBodyBytes`). */
  maxBodyBytes?: number;
  responses: Record<number, RouteResponse>;
  /** An alias kept for compatibility (OpenAPI `deprecated`, a `Deprecation` response header). */
  deprecated?: boolean;
  handler(input: RouteInput<z.output<P>, z.output<Q>, z.output<B>>): Promise<HandlerResult | Response>;
}

/** Identity helper that infers the schema types for the handler. */
export function defineRoute<P extends z.ZodType, Q extends z.ZodType, B extends z.ZodType>(
  spec: RouteSpec<P, Q, B>,
): RouteSpec {
  return spec as unknown as RouteSpec;
}

/** Where agents' routes live, and where they lived before (kept as aliases until 2.0, docs/api.md). */
export const AGENTS_PATH = "/api/agents";
export const LEGACY_AGENTS_PATH = "/api/instances";

/** `/api/instances/...` aliases of the `/api/agents/...` routes: same handler, marked deprecated. */
export function legacyAgentAliases(routes: readonly RouteSpec[]): RouteSpec[] {
  return routes
    .filter((r) => r.path === AGENTS_PATH || r.path.startsWith(`${AGENTS_PATH}/`))
    .map((r) => ({
      ...r,
      path: `${LEGACY_AGENTS_PATH}${r.path.slice(AGENTS_PATH.length)}`,
      operationId: `${r.operationId}Legacy`,
      summary: `Deprecated alias of ${r.method.toUpperCase()} ${openApiPath(r.path)} (removed in 2.0). ${r.summary}`,
      deprecated: true,
    }));
}

/** The OpenAPI form of a hono path: `/a/:slug` → `/a/{slug}`. */
export function openApiPath(path: string): string {
  return path.replace(/:([A-Za-z0-9_]+)/g, "{$1}");
}

/** A matcher for a hono path, used to answer 405 instead of 404 for a known path. */
export function pathMatcher(path: string): RegExp {
  const pattern = path
    .split("/")
    .map((segment) => (segment.startsWith(":") ? "[^/]+" : segment.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")))
    .join("/");
  return new RegExp(`^${pattern}/?$`);
}
