// CORS for the endpoints a browser-based MCP client calls cross-origin: the RFC 8414 and
// RFC 9728 metadata documents, registration, the token endpoint and revocation.
// Invariants: these answer `Access-Control-Allow-Origin: *` and never
// `Access-Control-Allow-Credentials` — none of them reads a cookie, so no ambient authority
// crosses origins; the consent page (/oauth/authorize), the console and the admin API get no
// CORS header at all (a page on another origin must not read or drive them). Preflights
// (OPTIONS) are answered 204 here, before any route.
import type { Hono } from "hono";
import { cors } from "hono/cors";

const publicCors = cors({
  origin: "*",
  allowMethods: ["GET", "POST", "OPTIONS"],
  allowHeaders: ["content-type", "authorization", "mcp-protocol-version"],
  exposeHeaders: ["www-authenticate", "retry-after"],
  maxAge: 86_400,
});

/** Answers CORS on these exact paths; call before the paths' own routes are mounted. */
export function mountPublicCors(app: Hono, paths: readonly string[]): void {
  for (const path of paths) app.use(path, publicCors);
}
