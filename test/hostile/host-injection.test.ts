// Hostile, end to end through createHost with an injected DNS resolver and clock (the library
// API's test seams): a resolver answering a declared name with the metadata or a loopback
// address is still refused by the gate; an artifact is gone once the injected clock passes its
// TTL, and the expired take is audited as a denial. The host keeps serving; no secret leaks.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openTestHost, type TestHost } from "../../host/src/engine/pipeline/test-host.ts";
import { startServer, type TestServer } from "../../host/src/isolation/egress/test-support.ts";
import type { Resolver } from "../../host/src/isolation/egress/types.ts";

const SECRET = "sk-injected-3c9e7a";
let server: TestServer;
let t: TestHost;
let now = 1_900_000_000_000;
const asked: string[] = [];
const answers: Record<string, string> = {};
const resolver: Resolver = async (name) => {
  asked.push(name);
  const address = answers[name];
  if (address === undefined) throw Object.assign(new Error(`no answer for ${name}`), { code: "ENOTFOUND" });
  return [{ address, family: 4 }];
};

beforeAll(async () => {
  server = await startServer((_req, res) => res.end("reached"));
  t = await openTestHost(
    [
      {
        namespace: "seams",
        tools: [
          {
            name: "get",
            annotations: { readOnlyHint: true },
            inputSchema: { type: "object" },
            requiredSecrets: [{ key: "api_key", type: "text", optional: false, sensitive: true }],
            code: `async (input, ctx) => {
              try {
                const r = await ctx.fetch(input.url, { headers: { authorization: ctx.secrets.ref("api_key") } });
                return { status: r.status, text: await r.text() };
              } catch (e) { return { code: e.code }; }
            }`,
          },
          {
            name: "put",
            annotations: { readOnlyHint: true },
            code: `async (input, ctx) => ({ handle: await ctx.artifacts.put({ buffer: "x", filename: "x.txt", mime: "text/plain" }, 60000) })`,
          },
          {
            name: "take",
            annotations: { readOnlyHint: true },
            inputSchema: { type: "object" },
            code: `async (input, ctx) => ({ got: (await ctx.artifacts.take(input.handle)) !== null })`,
          },
        ],
        egress: [
          { host: "api.seams.test", schemes: ["http"], ports: [server.port], secrets: ["api_key"] },
          { host: "inner.seams.test", schemes: ["http"], ports: [server.port], secrets: ["api_key"] },
        ],
      },
    ],
    { resolver, clock: () => now, egress: { allowPrivate: ["api.seams.test"] } },
  );
  await t.host.createAgent("ada");
  await t.host.setToolsEnabled("ada", { "seams:get": true, "seams:put": true, "seams:take": true });
  await t.host.setSecrets("ada", { api_key: SECRET });
});
afterAll(async () => {
  await t?.close();
  await server?.close();
});

const get = async (url: string) =>
  (await t.host.callTool("ada", "seams:get", { url })).result.structuredContent as Record<string, unknown>;

async function expectHealthy(): Promise<void> {
  answers["api.seams.test"] = "127.0.0.1";
  expect(await get(`http://api.seams.test:${server.port}/ok`)).toEqual({ status: 200, text: "reached" });
  expect(JSON.stringify(await t.host.queryAudit({ limit: 10_000 }))).not.toContain(SECRET);
}

describe("createHost with an injected resolver", () => {
  it("asks the injected resolver and reaches the address it gave (allowed by allowPrivate)", async () => {
    await expectHealthy();
    expect(asked).toContain("api.seams.test");
  });

  it("refuses a declared name the resolver points at the metadata address with AIRLOCK_FETCH_ADDRESS_REFUSED", async () => {
    answers["inner.seams.test"] = "169.254.169.254";
    expect(await get(`http://inner.seams.test:${server.port}/`)).toEqual({
      code: "AIRLOCK_FETCH_ADDRESS_REFUSED",
    });
    const row = (await t.host.queryAudit({ tool: "get" })).find((r) => r.action === "fetch.request");
    expect(row).toMatchObject({ allowed: false, error: "AIRLOCK_FETCH_ADDRESS_REFUSED" });
    await expectHealthy();
  });

  it("refuses a loopback answer for a name the operator did not allow", async () => {
    answers["inner.seams.test"] = "127.0.0.1";
    const before = server.seen.length;
    expect(await get(`http://inner.seams.test:${server.port}/`)).toEqual({
      code: "AIRLOCK_FETCH_ADDRESS_REFUSED",
    });
    expect(server.seen.length).toBe(before);
    await expectHealthy();
  });
});

describe("createHost with an injected clock", () => {
  it("drops an artifact once the clock passes its TTL, auditing the take as a denial", async () => {
    const { handle } = (await t.host.callTool("ada", "seams:put", {})).result.structuredContent as {
      handle: string;
    };
    now += 60_001;
    const out = await t.host.callTool("ada", "seams:take", { handle });
    expect(out.result.structuredContent).toEqual({ got: false });
    const row = (await t.host.queryAudit({ tool: "take" })).find((r) => r.action === "artifacts.take");
    expect(row).toMatchObject({
      allowed: false,
      error: "AIRLOCK_ARTIFACT_UNAVAILABLE",
      details: { reason: "unavailable" },
    });
    await expectHealthy();
  });
});
