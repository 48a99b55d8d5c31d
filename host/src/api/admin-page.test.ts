// The web admin page: served without a token under a strict CSP, renders with textContent
// only, and calls nothing but routes the admin API has (with the method it has them).

import type { Hono } from "hono";
import { afterAll, beforeAll, expect, test } from "vitest";
import { adminRoutes, createAdminApi } from "./app.ts";
import { pathMatcher } from "./route-table.ts";
import { createSurfaceFixture, type SurfaceFixture } from "./test-support.ts";

let f: SurfaceFixture;
let app: Hono;

beforeAll(async () => {
  f = await createSurfaceFixture({ install: false });
  app = createAdminApi(f.host, { mcp: false, log: () => undefined });
});
afterAll(async () => {
  await f.close();
});

test("serves the page, its script and style without a token, under a same-origin-only CSP", async () => {
  for (const [path, type] of [
    ["/admin", "text/html"],
    ["/admin/app.js", "text/javascript"],
    ["/admin/style.css", "text/css"],
  ] as const) {
    const res = await app.request(path);
    expect(res.status, path).toBe(200);
    expect(res.headers.get("content-type")).toContain(type);
    const csp = res.headers.get("content-security-policy") ?? "";
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
  }
  expect(await (await app.request("/admin")).text()).toContain('src="/admin/app.js"');
});

test("the script writes text only and calls only routes the API has", async () => {
  const script = await (await app.request("/admin/app.js")).text();
  expect(script).not.toMatch(/innerHTML|outerHTML|insertAdjacentHTML|document\.write|eval\(/);
  const calls = [...script.matchAll(/api\("(GET|POST|PUT|PATCH|DELETE)", [`"](\/api\/[^`"]+)[`"]/g)].map(
    (m) => ({
      method: (m[1] as string).toLowerCase(),
      path: (m[2] as string).replace(/\$\{[^}]+\}/g, "x"),
    }),
  );
  calls.push({ method: "get", path: "/api/events" });
  expect(calls.length).toBeGreaterThan(10);
  const routes = adminRoutes();
  for (const call of calls) {
    const found = routes.some((r) => r.method === call.method && pathMatcher(r.path).test(call.path));
    expect(found, `${call.method} ${call.path}`).toBe(true);
  }
});
