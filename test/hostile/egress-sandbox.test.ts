// Hostile, end to end: plugin code running in the sandbox aims ctx.fetch at the metadata service,
// undeclared hosts and unbound hosts, and tries to read back a secret it had injected. Real host
// (SQLite store, in-process sandbox, real bridge and fetch capability), loopback servers only.
// The plugin sees the exact codes, never the secret value; the host keeps serving.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { FixturePlugin } from "../../host/src/engine/pipeline/test-fixtures.ts";
import { openTestHost, type TestHost } from "../../host/src/engine/pipeline/test-host.ts";
import { startServer, type TestServer } from "../../host/src/isolation/egress/test-support.ts";

const SECRET = "sk-e2e-9c0ffee4b1d7e05a";
let echo: TestServer;
let unbound: TestServer;
let t: TestHost;

const probe = `async (input, ctx) => {
  try {
    const headers = input.withKey ? { authorization: ctx.secrets.ref("api_key") } : {};
    const r = await ctx.fetch(input.url, { headers });
    return { status: r.status, text: await r.text(), headers: Object.fromEntries(r.headers), url: r.url };
  } catch (e) {
    return { code: e.code, message: e.message };
  }
}`;

function plugin(echoPort: number, unboundPort: number): FixturePlugin {
  return {
    namespace: "prober",
    tools: [
      {
        name: "probe",
        code: probe,
        annotations: { readOnlyHint: true },
        inputSchema: {
          type: "object",
          properties: { url: { type: "string" }, withKey: { type: "boolean" } },
          required: ["url"],
        },
        requiredSecrets: [{ key: "api_key", type: "text", optional: false, sensitive: true }],
      },
    ],
    egress: [
      { host: "127.0.0.1", schemes: ["http"], ports: [echoPort], secrets: ["api_key"] },
      { host: "127.0.0.1", schemes: ["http"], ports: [unboundPort] },
    ],
  };
}

beforeAll(async () => {
  echo = await startServer((req, res) => {
    res.setHeader("x-echo", String(req.headers.authorization ?? ""));
    res.end(`you sent ${String(req.headers.authorization ?? "nothing")}`);
  });
  unbound = await startServer((_req, res) => res.end("collected"));
  t = await openTestHost([plugin(echo.port, unbound.port)], { egress: { allowPrivate: ["127.0.0.1"] } });
  await t.host.createAgent("ada");
  await t.host.setToolsEnabled("ada", { "prober:probe": true });
  await t.host.setSecrets("ada", { api_key: SECRET });
});
afterAll(async () => {
  await t?.close();
  await echo.close();
  await unbound.close();
});

async function call(url: string, withKey = false): Promise<Record<string, unknown>> {
  const out = await t.host.callTool("ada", "prober:probe", { url, withKey });
  const first = out.result.content[0] as { type: string; text: string };
  return JSON.parse(first.text) as Record<string, unknown>;
}

async function healthyAndLeakFree(): Promise<void> {
  const ok = await call(`http://127.0.0.1:${echo.port}/health`);
  expect(ok.status).toBe(200);
  const audit = await t.host.queryAudit({ limit: 500 });
  expect(JSON.stringify(audit)).not.toContain(SECRET);
}

describe("hostile egress from inside the sandbox", () => {
  it.each([
    // No manifest may declare the metadata service any more (refused at build and install);
    // the gate refuses an IP literal by its address before it looks at the declared hosts.
    ["http://169.254.169.254/latest/meta-data/", "AIRLOCK_FETCH_ADDRESS_REFUSED"],
    ["http://2852039166/latest/meta-data/", "AIRLOCK_FETCH_ADDRESS_REFUSED"],
    ["http://[::ffff:a9fe:a9fe]/", "AIRLOCK_FETCH_ADDRESS_REFUSED"],
    ["http://evil.example/", "AIRLOCK_FETCH_HOST_NOT_ALLOWED"],
    ["file:///etc/passwd", "AIRLOCK_FETCH_SCHEME_NOT_ALLOWED"],
  ])("gets %s refused with %s", async (url, code) => {
    const out = await call(url);
    expect(out.code).toBe(code);
    await healthyAndLeakFree();
  });

  it("cannot send its secret to a host it is not bound to", async () => {
    const before = unbound.connections();
    const out = await call(`http://127.0.0.1:${unbound.port}/collect`, true);
    expect(out.code).toBe("AIRLOCK_FETCH_SECRET_NOT_BOUND");
    expect(unbound.connections()).toBe(before);
    await healthyAndLeakFree();
  });

  it("has its secret injected toward the bound host but cannot read it back", async () => {
    const out = await call(`http://127.0.0.1:${echo.port}/echo`, true);
    expect(echo.seen.at(-1)?.headers.authorization).toBe(SECRET);
    // the echo server reflects it: the whole response is refused before it reaches the isolate
    expect(out.code).toBe("AIRLOCK_FETCH_SECRET_ECHOED");
    expect(JSON.stringify(out)).not.toContain(SECRET);
    await healthyAndLeakFree();
  });

  it("audits each request once, as fetch.request, with the plugin and tool", async () => {
    const fetches = async () =>
      (await t.host.queryAudit({ plugin: "prober", limit: 1000 })).filter(
        (e) => e.action === "fetch.request",
      );
    const before = (await fetches()).length;
    await call(`http://127.0.0.1:${echo.port}/audited`);
    const after = await fetches();
    expect(after.length).toBe(before + 1);
    expect(after[0]).toMatchObject({ kind: "capability", plugin: "prober", tool: "probe", allowed: true });
    expect(after[0]?.details).toMatchObject({ host: "127.0.0.1", method: "GET", status: 200 });
    await healthyAndLeakFree();
  });
});
