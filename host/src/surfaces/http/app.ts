// createAdminApi(host, options) → the hono app of the HTTP admin API (and, unless disabled,
// the MCP streamable-HTTP endpoint at /mcp/:slug). A thin layer over AirlockHost: each route
// authenticates, checks access, validates, calls one host method and answers JSON.
// Invariants: every route comes from the route table (so it is in the OpenAPI document);
// every failure answers `{error: {code, message}}` with a stable code and no stack; with
// `allowedHosts` set, a request whose Host/Origin is not the server's own is refused first.
import { Hono } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { AirlockHost } from "../../contracts/host.ts";
import type { McpHttpOptions } from "../mcp/http.ts";
import { MCP_OPENAPI_PATH, mountMcpHttp } from "../mcp/http.ts";
import { PROTECTED_RESOURCE_OPENAPI_PATHS } from "../mcp/protected-resource.ts";
import { bearerChallenge, bearerToken } from "./auth.ts";
import { grantRoutes } from "./authz/grant-routes.ts";
import { AUTHZ_OPENAPI_PATHS } from "./authz/openapi.ts";
import { mountAuthorizationServer } from "./authz/routes.ts";
import { consoleApiRoutes } from "./console/api-routes.ts";
import { consoleBrokerRoutes } from "./console/broker-routes.ts";
import { consolePageRoutes } from "./console/page-routes.ts";
import { consoleRegistryRoutes } from "./console/registry-routes.ts";
import { apiError, toWireError } from "./errors.ts";
import { type RequestFailure, reportFailures } from "./failures.ts";
import { hostGuard } from "./host-guard.ts";
import { buildOpenApiDocument, type ExtraPath } from "./openapi.ts";
import { mountPeoplePages, PEOPLE_PAGES_OPENAPI_PATHS } from "./people/routes.ts";
import { registerRoute } from "./register.ts";
import { legacyAgentAliases, pathMatcher, type RouteSpec } from "./route-table.ts";
import { auditRoutes } from "./routes/audit.ts";
import { callRoutes } from "./routes/calls.ts";
import { catalogueRoutes } from "./routes/catalogue.ts";
import { codeModeRoutes } from "./routes/code-mode.ts";
import { eventRoutes } from "./routes/events.ts";
import { instanceRoutes } from "./routes/instances.ts";
import { metaRoutes } from "./routes/meta.ts";
import { oauthRoutes } from "./routes/oauth.ts";
import { operationsRoutes } from "./routes/operations.ts";
import { peopleRoutes } from "./routes/people.ts";
import { pluginRoutes } from "./routes/plugins.ts";
import { remoteRoutes } from "./routes/remote.ts";
import { skillRoutes } from "./routes/skills.ts";
import { snippetRoutes } from "./routes/snippets.ts";

export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

export interface AdminApiOptions {
  /** Largest JSON body accepted (bytes); default 1 MiB. Tarball uploads have their own cap. */
  maxBodyBytes?: number;
  /** Interval of SSE keep-alive comments on /api/events (ms; 0 disables); default 15 000. */
  eventKeepAliveMs?: number;
  /** Event streams open at once; default 64. */
  maxEventStreams?: number;
  /** Event streams one agent (or the operators together) may hold; default min(8, maxEventStreams). */
  maxEventStreamsPerPrincipal?: number;
  /**
   * DNS-rebinding protection: the `host:port` values (and thus `http://host:port` origins) this
   * server answers to. Read on every request (the port may be known only after listen).
   * Undefined (in-process use) disables the check.
   */
  allowedHosts?: () => readonly string[] | undefined;
  /** Serve MCP at /mcp/:slug (default true); options for each agent's MCP server. */
  mcp?: false | McpHttpOptions;
  /** Where unexpected (non-AIRLOCK) failures are reported; default console.error. */
  log?: (error: unknown) => void;
  /**
   * Called once for every answer with status 4xx or 5xx (failures.ts), with its AIRLOCK_* code;
   * `airlock start` prints one line each. Default: none.
   */
  onFailure?: (failure: RequestFailure) => void;
  /** False once the server drains (GET /readyz answers 503); default always true. */
  accepting?: () => boolean;
}

/** The route table (also what the OpenAPI document is built from). */
export function adminRoutes(options: AdminApiOptions = {}): RouteSpec[] {
  return [
    ...catalogueRoutes,
    ...skillRoutes,
    ...instanceRoutes,
    ...codeModeRoutes,
    ...snippetRoutes,
    ...pluginRoutes,
    ...consoleApiRoutes,
    ...consoleRegistryRoutes,
    ...consoleBrokerRoutes,
    ...grantRoutes,
    ...remoteRoutes,
    ...auditRoutes,
    ...callRoutes,
    ...oauthRoutes,
    ...peopleRoutes,
    ...operationsRoutes({
      accepting: options.accepting ?? (() => true),
      log: options.log ?? ((error: unknown) => console.error("airlock admin API:", error)),
    }),
    ...eventRoutes({
      keepAliveMs: options.eventKeepAliveMs ?? 15_000,
      maxStreams: options.maxEventStreams ?? 64,
      ...(options.maxEventStreamsPerPrincipal === undefined
        ? {}
        : { maxStreamsPerPrincipal: options.maxEventStreamsPerPrincipal }),
    }),
  ];
}

export function createAdminApi(host: AirlockHost, options: AdminApiOptions = {}): Hono {
  const log = options.log ?? ((error: unknown) => console.error("airlock admin API:", error));
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const app = new Hono();
  const extra: ExtraPath[] =
    options.mcp === false
      ? []
      : [
          MCP_OPENAPI_PATH,
          ...PROTECTED_RESOURCE_OPENAPI_PATHS,
          ...AUTHZ_OPENAPI_PATHS,
          ...PEOPLE_PAGES_OPENAPI_PATHS,
        ];
  const routes: RouteSpec[] = [...adminRoutes(options)];
  routes.push(...legacyAgentAliases(routes));
  routes.push(...metaRoutes(() => buildOpenApiDocument(routes, host.version, extra)), ...consolePageRoutes());
  const matchers = routes.map((route) => ({ method: route.method, match: pathMatcher(route.path) }));

  app.onError((error, c) => {
    const wire = toWireError(error, log);
    if (wire.status === 401)
      c.header("www-authenticate", bearerChallenge(bearerToken(c.req.header("authorization")) !== null));
    if (wire.retryAfter !== undefined) c.header("retry-after", String(wire.retryAfter));
    return c.json(wire.body, wire.status as ContentfulStatusCode);
  });
  app.notFound((c) => {
    const path = new URL(c.req.url).pathname;
    const allowed = matchers.filter((m) => m.match.test(path)).map((m) => m.method.toUpperCase());
    const error =
      allowed.length > 0
        ? apiError(
            "AIRLOCK_API_METHOD_NOT_ALLOWED",
            `${c.req.method} is not allowed here; use ${allowed.join(", ")}`,
          )
        : apiError("AIRLOCK_API_NOT_FOUND", "no route matches this path; see GET /api/openapi.json");
    const wire = toWireError(error);
    if (allowed.length > 0) c.header("allow", allowed.join(", "));
    return c.json(wire.body, wire.status as ContentfulStatusCode);
  });

  if (options.onFailure !== undefined) app.use("*", reportFailures(options.onFailure));
  if (options.allowedHosts !== undefined) app.use("*", hostGuard(options.allowedHosts));
  app.use("*", async (c, next) => {
    await next();
    c.header("x-content-type-options", "nosniff");
    if (!c.res.headers.has("cache-control")) c.header("cache-control", "no-store");
  });

  for (const route of routes) registerRoute(app, host, route, { maxBodyBytes });
  if (options.mcp !== false) {
    mountMcpHttp(app, host, options.mcp ?? {});
    mountPeoplePages(app, host);
    mountAuthorizationServer(app, host);
  }
  return app;
}
