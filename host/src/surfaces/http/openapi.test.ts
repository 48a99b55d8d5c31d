// The OpenAPI document is generated from the route table: every route hono has registered is
// described, with the operation's access rule, its parameters and its error shape.

import type { Hono } from "hono";
import { afterAll, beforeAll, expect, test } from "vitest";
import { createAdminApi } from "./app.ts";
import { openApiPath } from "./route-table.ts";
import { createSurfaceFixture, type SurfaceFixture } from "./test-support.ts";

let f: SurfaceFixture;
let app: Hono;
let doc: { openapi: string; paths: Record<string, Record<string, Record<string, unknown>>> };

beforeAll(async () => {
  f = await createSurfaceFixture({ install: false });
  app = createAdminApi(f.host, { log: () => undefined });
  const res = await app.request("/api/openapi.json");
  expect(res.status).toBe(200);
  doc = (await res.json()) as typeof doc;
});
afterAll(async () => {
  await f.close();
});

test("is an OpenAPI 3.1 document served without a token", () => {
  expect(doc.openapi).toBe("3.1.0");
});

test("describes every route registered on the app, with its method", () => {
  const registered = app.routes.filter((r) => r.path !== "*" && r.path !== "/*");
  expect(registered.length).toBeGreaterThan(20);
  for (const route of registered) {
    const item = doc.paths[openApiPath(route.path)];
    expect(item, `${route.method} ${route.path}`).toBeDefined();
    if (route.method !== "ALL")
      expect(item?.[route.method.toLowerCase()], `${route.method} ${route.path}`).toBeDefined();
  }
});

test("gives every operation a unique operationId, an access rule and the error schema", () => {
  const ids = new Set<string>();
  for (const item of Object.values(doc.paths)) {
    for (const operation of Object.values(item)) {
      const id = operation.operationId as string;
      expect(ids.has(id), id).toBe(false);
      ids.add(id);
      expect(operation["x-airlock-access"]).toMatch(/^(public|operator|agent-self|any-token)$/);
      const responses = operation.responses as Record<string, unknown>;
      expect(responses["500"] ?? responses["404"]).toBeDefined();
    }
  }
});

test("documents path parameters and request bodies from the zod schemas", () => {
  const put = doc.paths["/api/agents/{slug}/knowledge"]?.put as Record<string, unknown>;
  expect(put.parameters).toEqual([expect.objectContaining({ name: "slug", in: "path", required: true })]);
  const schema = (put.requestBody as { content: Record<string, { schema: Record<string, unknown> }> })
    .content["application/json"]?.schema;
  expect(schema).toMatchObject({
    type: "object",
    properties: { level: { enum: ["none", "read", "write", "manage"] } },
    required: ["level"],
  });
  const install = doc.paths["/api/plugins"]?.post as { requestBody: { content: Record<string, unknown> } };
  expect(Object.keys(install.requestBody.content).sort()).toEqual([
    "application/json",
    "application/octet-stream",
  ]);
});

test("names agents /api/agents and keeps /api/instances as deprecated aliases that answer alike", async () => {
  const agentPaths = Object.keys(doc.paths).filter((p) => p.startsWith("/api/agents"));
  expect(agentPaths).toContain("/api/agents/{slug}/tools");
  for (const path of agentPaths) {
    const alias = doc.paths[path.replace("/api/agents", "/api/instances")];
    for (const [method, operation] of Object.entries(doc.paths[path] ?? {})) {
      expect(operation.deprecated, `${method} ${path}`).toBeUndefined();
      expect(alias?.[method]?.deprecated, `${method} alias of ${path}`).toBe(true);
    }
  }
  const headers = { authorization: `Bearer ${f.operatorToken}` };
  const now = await app.request("/api/agents", { headers });
  const before = await app.request("/api/instances", { headers });
  expect(now.status).toBe(200);
  expect(await before.json()).toEqual(await now.json());
  expect(now.headers.get("deprecation")).toBeNull();
  expect(before.headers.get("deprecation")).toMatch(/^@\d+$/);
  expect(before.headers.get("link")).toBe('</api/agents>; rel="successor-version"');
});

test("redirects a browser opening / to the console", async () => {
  const res = await app.request("/", { headers: { accept: "text/html" } });
  expect(res.status).toBe(302);
  expect(res.headers.get("location")).toBe("/admin");
  expect(doc.paths["/"]?.get?.operationId).toBe("rootRedirect");
});
