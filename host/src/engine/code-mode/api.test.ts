// Code mode through the admin API (hono's app.request against a real host with the kit fixture):
// the operator reads and changes an agent's code mode, bad changes are refused whole, an agent
// token cannot change it, and once on, the calls route serves search_tools and run_code.
import type { Hono } from "hono";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createAdminApi } from "../../surfaces/http/app.ts";
import { createSurfaceFixture, type SurfaceFixture } from "../../surfaces/http/test-support.ts";

let f: SurfaceFixture;
let app: Hono;

async function api(method: string, path: string, token: string, body?: unknown) {
  const res = await app.request(path, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

beforeAll(async () => {
  f = await createSurfaceFixture();
  app = createAdminApi(f.host, { mcp: false, log: () => undefined });
});
afterAll(async () => {
  await f.close();
});

describe("code-mode routes", () => {
  test("reads the defaults, changes them, and refuses a bad change whole", async () => {
    const read = await api("GET", "/api/instances/alpha/code-mode", f.operatorToken);
    expect(read).toMatchObject({
      status: 200,
      json: { enabled: false, exclusive: false, scratch: false, limits: { cpuMs: 2000 } },
    });
    const bad = await api("PUT", "/api/instances/alpha/code-mode", f.operatorToken, {
      enabled: true,
      limits: { maxInnerCalls: -1 },
    });
    expect(bad.status).toBe(400);
    expect(bad.json).toMatchObject({ error: { code: "AIRLOCK_API_INVALID_REQUEST" } });
    expect((await api("GET", "/api/instances/alpha/code-mode", f.operatorToken)).json.enabled).toBe(false);
    const on = await api("PUT", "/api/instances/alpha/code-mode", f.operatorToken, {
      enabled: true,
      limits: { maxInnerCalls: 3 },
    });
    expect(on).toMatchObject({
      status: 200,
      json: { enabled: true, limits: { maxInnerCalls: 3, cpuMs: 2000 } },
    });
    const scratch = await api("PUT", "/api/instances/alpha/code-mode", f.operatorToken, {
      scratch: true,
      limits: { scratchMaxKeys: 5 },
    });
    expect(scratch).toMatchObject({ status: 200, json: { scratch: true, limits: { scratchMaxKeys: 5 } } });
    const badScratch = await api("PUT", "/api/instances/alpha/code-mode", f.operatorToken, {
      scratch: "yes",
    });
    expect(badScratch.status).toBe(400);
    const audit = await f.host.queryAudit({ agent: "alpha", kind: "admin", limit: 10 });
    expect(audit.map((e) => e.action)).toContain("agent.code_mode");
  });

  test("refuses an agent token and answers an unknown agent with its code", async () => {
    const own = await api("PUT", "/api/instances/alpha/code-mode", f.agentToken, { enabled: true });
    expect(own.status).toBe(403);
    const unknown = await api("GET", "/api/instances/nobody/code-mode", f.operatorToken);
    expect(unknown.status).toBe(404);
  });

  test("serves search_tools and run_code on the calls route once on", async () => {
    const search = await api("POST", "/api/instances/alpha/calls", f.agentToken, {
      tool: "airlock:search_tools",
      input: { query: "echo" },
    });
    expect(search.status).toBe(200);
    expect(JSON.stringify(search.json.result)).toContain("function echo(input: {");
    const ran = await api("POST", "/api/instances/alpha/calls", f.agentToken, {
      tool: "airlock__run_code",
      input: {
        code: 'const a = await tools.kit.echo({ text: "one" });\nreturn [a, await tools.kit.picture({})];',
      },
    });
    expect(ran.status).toBe(200);
    expect((ran.json.result as { structuredContent: unknown }).structuredContent).toEqual({
      value: ["echo: one", { width: 1, height: 1 }],
    });
    const failed = await api("POST", "/api/instances/alpha/calls", f.agentToken, {
      tool: "airlock__run_code",
      input: { code: "await tools.kit.fail({});" },
    });
    expect(failed.json).toMatchObject({ errorCode: "AIRLOCK_CODE_THREW" });
    expect(JSON.stringify(failed.json)).toContain("AIRLOCK_TOOL_REPORTED_ERROR");
  });
});
