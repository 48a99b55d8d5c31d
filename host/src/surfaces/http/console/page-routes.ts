// The operator console's own routes: `/` (redirects to it), the page (/admin), its bundled
// script and style, and the session (sign in, who am I + CSRF token, sign out). Everything else the console does goes
// through the admin API like any client.
// Invariants: every console response carries a same-origin-only CSP without inline script or
// style, `frame-ancestors 'none'` and `X-Frame-Options: DENY` (no framing: no clickjacking),
// `Referrer-Policy: no-referrer`; the session token never appears in a body, only sealed in the
// HttpOnly cookie; the CSRF token is handed to the page by GET /admin/session, which a page of
// another origin cannot read (no CORS headers are ever sent).
import { z } from "zod";
import { apiError } from "../errors.ts";
import { defineRoute, type RouteSpec } from "../route-table.ts";
import { consoleScript, consoleStyle } from "./bundle.ts";
import {
  checkCsrf,
  openSession,
  readCookie,
  SESSION_COOKIE,
  SESSION_TTL_MS,
  sessionCookie,
  signIn,
  signOut,
} from "./session.ts";

export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self' data:",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join("; ");

export const CONSOLE_HEADERS: Readonly<Record<string, string>> = {
  "content-security-policy": CONSOLE_CSP,
  "x-frame-options": "DENY",
  "referrer-policy": "no-referrer",
  "cross-origin-opener-policy": "same-origin",
  "cross-origin-resource-policy": "same-origin",
};

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Airlock console</title>
<link rel="stylesheet" href="/admin/app.css">
<script type="module" src="/admin/app.js"></script>
</head>
<body>
<div id="app"><noscript>The Airlock console needs JavaScript.</noscript></div>
</body>
</html>
`;

function respond(body: string, type: string, status = 200, extra: Record<string, string> = {}): Response {
  return new Response(body, { status, headers: { "content-type": type, ...CONSOLE_HEADERS, ...extra } });
}

const sessionView = z.object({ tokenId: z.string(), csrf: z.string(), expiresAt: z.string() });
const signInBody = z.strictObject({ token: z.string().min(1).max(512) });

export function consolePageRoutes(): RouteSpec[] {
  const page = (path: string, operationId: string, what: string, type: string, body: () => Promise<string>) =>
    defineRoute({
      method: "get",
      path,
      operationId,
      summary: `The operator console: ${what}.`,
      tag: "console",
      access: "public",
      responses: { 200: { description: what, mediaType: type.split(";")[0] as string } },
      async handler() {
        return respond(await body(), type);
      },
    });
  return [
    defineRoute({
      method: "get",
      path: "/",
      operationId: "rootRedirect",
      summary:
        "Redirects (302) to the operator console at /admin: a browser opening the host's address lands there.",
      tag: "console",
      access: "public",
      responses: { 302: { description: "To /admin.", mediaType: "text/plain" } },
      async handler() {
        return new Response("See /admin (the console) or /api/openapi.json (the admin API).\n", {
          status: 302,
          headers: { location: "/admin", "content-type": "text/plain; charset=utf-8", ...CONSOLE_HEADERS },
        });
      },
    }),
    page("/admin", "consolePage", "the page", "text/html; charset=utf-8", async () => PAGE),
    page("/admin/app.js", "consoleScript", "its script", "text/javascript; charset=utf-8", consoleScript),
    page("/admin/app.css", "consoleStyle", "its style", "text/css; charset=utf-8", consoleStyle),
    defineRoute({
      method: "post",
      path: "/admin/session",
      operationId: "consoleSignIn",
      summary:
        "Signs in to the console with an operator token: sets the HttpOnly session cookie and answers the CSRF token.",
      tag: "console",
      access: "public",
      body: signInBody,
      responses: { 200: { description: "The session.", schema: sessionView } },
      async handler({ host, body, c }) {
        const { cookie, session } = await signIn(host, body.token);
        const json = {
          tokenId: session.record.id,
          csrf: session.csrf,
          expiresAt: new Date(session.expiresAt).toISOString(),
        };
        return respond(JSON.stringify(json), "application/json", 200, {
          "set-cookie": sessionCookie(c, cookie, Math.floor(SESSION_TTL_MS / 1000)),
        });
      },
    }),
    defineRoute({
      method: "get",
      path: "/admin/session",
      operationId: "consoleSession",
      summary: "The console session of the cookie and its CSRF token (401 when signed out).",
      tag: "console",
      access: "public",
      responses: { 200: { description: "The session.", schema: sessionView } },
      async handler({ host, c }) {
        const session = await openSession(host, readCookie(c.req.header("cookie"), SESSION_COOKIE));
        if (session === null) throw apiError("AIRLOCK_API_UNAUTHORIZED", "not signed in to the console");
        const json = {
          tokenId: session.record.id,
          csrf: session.csrf,
          expiresAt: new Date(session.expiresAt).toISOString(),
        };
        return respond(JSON.stringify(json), "application/json");
      },
    }),
    defineRoute({
      method: "delete",
      path: "/admin/session",
      operationId: "consoleSignOut",
      summary: "Signs out: revokes the session (needs its CSRF token) and clears the cookie.",
      tag: "console",
      access: "public",
      responses: { 200: { description: "Signed out.", schema: z.object({ signedOut: z.literal(true) }) } },
      async handler({ host, c }) {
        const session = await openSession(host, readCookie(c.req.header("cookie"), SESSION_COOKIE));
        if (session === null) throw apiError("AIRLOCK_API_UNAUTHORIZED", "not signed in to the console");
        await checkCsrf(host, c, session);
        await signOut(host, session);
        return respond(JSON.stringify({ signedOut: true }), "application/json", 200, {
          "set-cookie": sessionCookie(c, "", 0),
        });
      },
    }),
  ];
}
