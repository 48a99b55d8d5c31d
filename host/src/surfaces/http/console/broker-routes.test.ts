// GET /api/broker/declared: what the active plugins declare (OAuth providers with their scopes
// and API hosts, model use with its reason), for operators only, and never a credential — the
// provider's client secret set as the agent's secret stays out of the answer (canary).
import type { Hono } from "hono";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { openTestHost, type TestHost } from "../../../engine/pipeline/test-host.ts";
import { createAdminApi } from "../app.ts";

const CANARY = "cs-canary-broker-declared-61f0";
let t: TestHost;
let app: Hono;
let operator: string;
let agent: string;

beforeAll(async () => {
  t = await openTestHost([
    {
      namespace: "gh",
      tools: [{ name: "me", code: 'async () => "me"', annotations: { readOnlyHint: true } }],
      egress: [{ host: "api.github.example" }],
      oauth: [
        {
          name: "github",
          authorizationUrl: "https://github.example/authorize",
          tokenUrl: "https://github.example/token",
          scopes: ["repo"],
          apiHosts: ["api.github.example"],
        },
      ],
    },
    {
      namespace: "asker",
      tools: [{ name: "ask", code: 'async () => "x"', annotations: { readOnlyHint: true } }],
      models: { reason: "summarises search results" },
    },
    { namespace: "plain", tools: [{ name: "echo", code: 'async () => "x"' }] },
  ]);
  app = createAdminApi(t.host, { mcp: false, log: () => undefined });
  operator = (await t.host.issueToken("operator", undefined, "t")).token;
  await t.host.createAgent("ada");
  agent = (await t.host.issueToken("agent", "ada", "t")).token;
  await t.host.setSecrets("ada", { github_oauth_client_id: "id-1", github_oauth_client_secret: CANARY });
});
afterAll(async () => {
  await t?.close();
});

describe("GET /api/broker/declared", () => {
  test("lists the providers and model use the active plugins declare, and no credential", async () => {
    const res = await app.request("/api/broker/declared", {
      headers: { authorization: `Bearer ${operator}` },
    });
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(JSON.parse(text)).toEqual({
      providers: [{ plugin: "gh", provider: "github", scopes: ["repo"], apiHosts: ["api.github.example"] }],
      models: [{ plugin: "asker", reason: "summarises search results" }],
    });
    expect(text).not.toContain(CANARY);
    expect(text).not.toContain("id-1");
  });

  test("refuses an agent token", async () => {
    const res = await app.request("/api/broker/declared", { headers: { authorization: `Bearer ${agent}` } });
    expect(res.status).toBe(403);
    expect(((await res.json()) as { error: { code: string } }).error.code).toMatch(/^AIRLOCK_/);
    expect((await app.request("/healthz")).status).toBe(200);
  });
});
