// Registers one route of the table on the hono app: authentication, access, then params,
// agent existence, query and body validation, then the handler.
// Invariants: the order is 401 → 403 → 400 (params) → 404 (agent) → 400/413/415 (query, body),
// so an agent token learns nothing about other agents; a body is read once, capped, and only
// for routes that declare one; a handler never sees unvalidated input.
import type { Context, Hono } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { AirlockHost } from "../../contracts/host.ts";
import { checkAccess } from "./auth.ts";
import { authenticateApiCall } from "./console/session.ts";
import { apiError } from "./errors.ts";
import { mediaType, parseJsonBody, readBodyCapped, validate } from "./request.ts";
import { AGENTS_PATH, LEGACY_AGENTS_PATH, type RouteSpec } from "./route-table.ts";

const RAW_TYPES = new Set([
  "application/octet-stream",
  "application/gzip",
  "application/x-gzip",
  "application/x-tar",
]);

function isJsonType(type: string): boolean {
  return type === "application/json" || (type.startsWith("application/") && type.endsWith("+json"));
}

function queryObject(url: string): Record<string, string> {
  const params = new URL(url).searchParams;
  const out: Record<string, string> = {};
  for (const [key, value] of params) {
    if (Object.hasOwn(out, key)) {
      throw apiError("AIRLOCK_API_INVALID_REQUEST", `query parameter ${JSON.stringify(key)} is given twice`);
    }
    out[key] = value;
  }
  return out;
}

async function readBody(
  request: Request,
  route: RouteSpec,
  limit: number,
): Promise<{ body: unknown; raw: Uint8Array | null }> {
  const bytes = await readBodyCapped(request, limit);
  const type = mediaType(request);
  if (bytes.byteLength === 0) {
    if (route.bodyOptional === true) return { body: {}, raw: null };
    throw apiError("AIRLOCK_API_INVALID_REQUEST", "this route needs a JSON body");
  }
  if (route.rawBody !== undefined && RAW_TYPES.has(type)) return { body: {}, raw: bytes };
  if (!isJsonType(type)) {
    const accepted =
      route.rawBody === undefined ? "application/json" : "application/json or application/octet-stream";
    throw apiError(
      "AIRLOCK_API_UNSUPPORTED_MEDIA_TYPE",
      `send ${accepted} (got ${type || "no Content-Type"})`,
    );
  }
  return { body: parseJsonBody(bytes), raw: null };
}

/** When the `/api/instances` aliases were deprecated (2026-12-07), as an RFC 9745 date. */
const DEPRECATED_SINCE = `@${Date.UTC(2026, 11, 7) / 1000}`;

/** RFC 9745 / RFC 8594: an alias says it is deprecated and links the path that replaces it. */
function deprecationHeaders(c: Context): void {
  const url = new URL(c.req.url);
  const successor = `${AGENTS_PATH}${url.pathname.slice(LEGACY_AGENTS_PATH.length)}`;
  c.header("deprecation", DEPRECATED_SINCE);
  c.header("link", `<${successor}>; rel="successor-version"`);
}

export function registerRoute(
  app: Hono,
  host: AirlockHost,
  route: RouteSpec,
  defaults: { maxBodyBytes: number },
): void {
  app.on(route.method.toUpperCase(), route.path, async (c) => {
    // A bearer token, or the operator console's session cookie (CSRF-checked): console/session.ts.
    if (route.deprecated === true) deprecationHeaders(c);
    const token = route.access === "public" ? null : await authenticateApiCall(host, c);
    const rawParams = c.req.param() as Record<string, string>;
    if (token !== null) checkAccess(token, route.access, rawParams.slug);
    const params = route.params === undefined ? {} : validate(route.params, rawParams, "params");
    if (rawParams.slug !== undefined && (await host.getAgent(rawParams.slug)) === null) {
      throw apiError("AIRLOCK_API_UNKNOWN_AGENT", `no agent has slug ${JSON.stringify(rawParams.slug)}`);
    }
    const rawQuery = queryObject(c.req.url);
    const query = route.query === undefined ? rawQuery : validate(route.query, rawQuery, "query");
    let body: unknown = {};
    let raw: Uint8Array | null = null;
    if (route.body !== undefined || route.rawBody !== undefined) {
      const read = await readBody(c.req.raw, route, route.maxBodyBytes ?? defaults.maxBodyBytes);
      raw = read.raw;
      body = raw === null && route.body !== undefined ? validate(route.body, read.body, "body") : read.body;
    }
    const result = await route.handler({ host, token, params, query, body, raw, c });
    if (result instanceof Response) return result;
    return c.json(result.json as object, (result.status ?? 200) as ContentfulStatusCode);
  });
}
