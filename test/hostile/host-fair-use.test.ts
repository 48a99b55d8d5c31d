// Hostile, through the real host (workers sandbox, ONE shared worker, SQLite, installed tarballs):
// floods of capability calls a plugin does not await. Each attack must end with its exact code,
// leave the shared worker alive (no restart: the flood is metered, never killed), keep a
// bystander plugin's calls in that same worker succeeding, and keep the host's own work quick:
// /healthz is asked again and again DURING the attack, and every answer must come within
// HEALTH_BOUND_MS (a generous correctness bound on an event loop that is never blocked for long,
// not a benchmark). No canary anywhere.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Hono } from "hono";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AirlockHost } from "../../host/src/contracts/host.ts";
import { createHost } from "../../host/src/host.ts";
import { testStore } from "../../host/src/state/store/test-store.ts";
import { createAdminApi } from "../../host/src/surfaces/http/app.ts";
import { KIT, kitTarball } from "../../host/src/surfaces/http/test-support.ts";
import { CANARY } from "../support/sandbox-hostile.ts";

const HEALTH_BOUND_MS = 200;
const KB = JSON.stringify("k".repeat(1024));

const FLOODER = {
  namespace: "flooder",
  tools: [
    {
      name: "logs",
      description: "Fires 40,000 unawaited ctx.log and ctx.progress calls of 1 KB each.",
      annotations: { readOnlyHint: true },
      code: `async (input, ctx) => { const m = ${KB}; for (let i = 0; i < 20000; i++) { ctx.log("info", m).catch(() => 0); ctx.progress(i, 20000, m).catch(() => 0); } return "flooded"; }`,
    },
    {
      name: "quota",
      description: "Writes 8 KB state keys, awaited, until the quota refuses one; says the code.",
      annotations: { readOnlyHint: true },
      code: `async (input, ctx) => { const v = "v".repeat(8192); for (let i = 0; i < 100; i++) { try { await ctx.state.set("k" + i, v); } catch (e) { return "refused " + e.code + " at " + i; } } return "never refused"; }`,
    },
    {
      name: "bigstate",
      description: "Fires 150 unawaited ctx.state.set calls of 2 MB each; says the codes it got.",
      annotations: { readOnlyHint: true },
      code: `async (input, ctx) => { const v = "w".repeat(2000000); const codes = await Promise.all(Array.from({ length: 150 }, (_, i) => ctx.state.set("big" + i, v).then(() => "ok", (e) => e.code))); return [...new Set(codes)].sort().join(","); }`,
    },
    {
      name: "mixed",
      description: "Fires 60,000 unawaited state, audit and denied secret calls.",
      annotations: { readOnlyHint: true },
      code: `async (input, ctx) => { for (let i = 0; i < 20000; i++) { ctx.state.get("k" + (i % 50)).catch(() => 0); ctx.audit.log({ action: "a" + i, details: { i } }).catch(() => 0); ctx.secrets.get("api_key").catch(() => 0); } return "mixed"; }`,
    },
    {
      name: "fine",
      description: "Answers (loads the plugin before the attacks, so they measure only themselves).",
      annotations: { readOnlyHint: true },
      code: 'async () => "fine"',
    },
  ],
  // generous CPU: the flood, not the CPU limit, is what these tests are about
  limits: { cpuMs: 10_000, wallMs: 30_000 },
};

const dataDir = mkdtempSync(join(tmpdir(), "airlock-host-fair-use-"));
const logs: string[] = [];
let host: AirlockHost;
let app: Hono;

const call = async (tool: string) => {
  const outcome = await host.callTool("alpha", tool, tool === "kit__echo" ? { text: "hi" } : {});
  return { code: outcome.errorCode, content: outcome.result.content };
};

/**
 * Runs `attack` while asking /healthz and calling the bystander (kit:echo, same worker) over and
 * over; returns the attack's outcome, the slowest health answer and the bystander's outcomes.
 */
async function during(attack: () => Promise<{ code: string | undefined; content: unknown }>) {
  let done = false;
  const outcome = attack().finally(() => {
    done = true;
  });
  let slowest = 0;
  const health = (async () => {
    while (!done) {
      const started = performance.now();
      const res = await app.request("/healthz");
      slowest = Math.max(slowest, performance.now() - started);
      expect(res.status).toBe(200);
      await new Promise((r) => setTimeout(r, 5));
    }
  })();
  const bystander = (async () => {
    const outcomes: Array<{ code: string | undefined; content: unknown }> = [];
    while (!done) outcomes.push(await call("kit__echo"));
    return outcomes;
  })();
  const [result, , seen] = await Promise.all([outcome, health, bystander]);
  return { result, slowest, bystander: seen };
}

const contained = async (bystander: Array<{ code: string | undefined; content: unknown }>) => {
  for (const b of bystander)
    expect(b).toEqual({ code: undefined, content: [{ type: "text", text: "echo: hi" }] });
  expect(await call("kit__echo")).toEqual({ code: undefined, content: [{ type: "text", text: "echo: hi" }] });
  expect(host.stats().sandbox.restarts).toBe(0); // the shared worker was never killed
  expect((await host.plugins.list()).find((p) => p.namespace === "flooder")?.worker).toMatchObject({
    tier: "shared",
  });
  const everything = JSON.stringify({ logs, audit: await host.queryAudit({}) });
  expect(everything).not.toContain(CANARY);
};

beforeAll(async () => {
  host = await createHost({
    dataDir,
    store: testStore(dataDir),
    sandbox: { mode: "workers", workers: 1 },
    limits: { cpuMs: 10_000 },
    onInternalError: (what, error) =>
      logs.push(`${what}: ${error instanceof Error ? error.message : String(error)}`),
  });
  app = createAdminApi(host, { mcp: false, log: (e) => logs.push(JSON.stringify(e)) });
  await host.plugins.installTarball(kitTarball(KIT), "file:kit.tgz", { allowUnsigned: true });
  await host.plugins.installTarball(kitTarball(FLOODER), "file:flooder.tgz", { allowUnsigned: true });
  await host.createAgent("alpha");
  const tools = ["kit:echo", ...FLOODER.tools.map((t) => `flooder:${t.name}`)];
  await host.setToolsEnabled("alpha", Object.fromEntries(tools.map((t) => [t, true])));
  await host.setSecrets("alpha", { api_key: CANARY });
  // both loaded in the one worker before any attack
  expect(await call("kit__echo")).toMatchObject({ code: undefined });
  expect(await call("flooder__fine")).toMatchObject({ code: undefined });
  expect((await app.request("/healthz")).status).toBe(200); // the app's first answer builds its routes
});
afterAll(async () => {
  await host.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe("a plugin flooding the host with capability calls", { timeout: 120_000 }, () => {
  it("40,000 unawaited 1 KB log/progress calls: refused at the cap, bystander served, worker alive", async () => {
    const { result, slowest, bystander } = await during(() => call("flooder__logs"));
    expect(result.code).toBe("AIRLOCK_BRIDGE_CALL_LIMIT");
    expect(slowest).toBeLessThan(HEALTH_BOUND_MS);
    expect(bystander.length).toBeGreaterThan(0);
    await contained(bystander);
  });

  it("state past the quota: the quota's error, awaited or flooded, and the worker lives", async () => {
    const awaited = await during(() => call("flooder__quota"));
    expect(awaited.result).toEqual({
      code: undefined,
      content: [{ type: "text", text: "refused AIRLOCK_STATE_TOO_LARGE at 31" }],
    });
    expect(awaited.slowest).toBeLessThan(HEALTH_BOUND_MS);
    const flooded = await during(() => call("flooder__bigstate"));
    expect(flooded.result).toEqual({
      code: undefined,
      content: [{ type: "text", text: "AIRLOCK_BRIDGE_BUSY,AIRLOCK_STATE_TOO_LARGE" }],
    });
    expect(flooded.slowest).toBeLessThan(HEALTH_BOUND_MS);
    await contained([...awaited.bystander, ...flooded.bystander]);
  });

  it("60,000 unawaited state, audit and denied calls: ended at the cap, health stays quick", async () => {
    const { result, slowest, bystander } = await during(() => call("flooder__mixed"));
    expect(result.code).toBe("AIRLOCK_BRIDGE_CALL_LIMIT");
    expect(slowest).toBeLessThan(HEALTH_BOUND_MS);
    await contained(bystander);
    // the cap's termination is audited once for the call
    const limits = (await host.queryAudit({ plugin: "flooder" })).filter(
      (r) => r.error === "AIRLOCK_BRIDGE_CALL_LIMIT" && r.tool === "mixed",
    );
    expect(limits.length).toBeGreaterThanOrEqual(1);
  });
});
