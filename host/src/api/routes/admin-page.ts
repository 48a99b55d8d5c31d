// The web admin page: three static files (admin-page/) served without a token — the page asks
// the operator for one and then calls the admin API like any client. A strict Content-Security-
// Policy allows scripts, styles and connections to this origin only, and no framing.
import { readFile } from "node:fs/promises";
import { defineRoute, type RouteSpec } from "../route-table.ts";

const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

const FILES = {
  "/admin": { file: "index.html", type: "text/html; charset=utf-8" },
  "/admin/app.js": { file: "app.js", type: "text/javascript; charset=utf-8" },
  "/admin/style.css": { file: "style.css", type: "text/css; charset=utf-8" },
} as const;

export function adminPageRoutes(): RouteSpec[] {
  const cache = new Map<string, string>();
  return Object.entries(FILES).map(([path, { file, type }]) =>
    defineRoute({
      method: "get",
      path,
      operationId: `adminPage${file.replace(/[^a-z]/gi, "")}`,
      summary: `The web admin page: ${file}.`,
      tag: "admin page",
      access: "public",
      responses: { 200: { description: file, mediaType: type.split(";")[0] as string } },
      async handler() {
        let text = cache.get(file);
        if (text === undefined) {
          text = await readFile(new URL(`../admin-page/${file}`, import.meta.url), "utf8");
          cache.set(file, text);
        }
        return new Response(text, {
          headers: { "content-type": type, "content-security-policy": CSP, "x-frame-options": "DENY" },
        });
      },
    }),
  );
}
