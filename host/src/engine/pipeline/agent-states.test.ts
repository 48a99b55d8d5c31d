// The per-call agent-state cache: a warm call does not re-read the agent, its enablement and
// its secrets, yet every write made through the host (disable, secret cleared, level changed,
// the agent deleted) is seen by the very next call of a run already started.
// Real host: SQLite store + in-process sandbox.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openStore } from "../../state/store/index.ts";
import type { Store } from "../../state/store/types.ts";
import { createAgentStateCache, trackAgentWrites } from "./agent-states.ts";
import type { FixturePlugin } from "./test-fixtures.ts";
import { openTestHost, type TestHost } from "./test-host.ts";

const readOnly = { readOnlyHint: true };
const weather: FixturePlugin = {
  namespace: "weather",
  tools: [
    { name: "forecast", code: "async (input) => 'sunny'", annotations: readOnly },
    {
      name: "alerts",
      code: "async (input, ctx) => 'level ' + (ctx.knowledge ? ctx.knowledge.level : 'none')",
      annotations: readOnly,
      requiredSecrets: [{ key: "api_key", type: "text", optional: false, sensitive: true }],
    },
  ],
};

describe("agent state seen by calls of a started run", () => {
  let t: TestHost;
  beforeEach(async () => {
    t = await openTestHost([weather]);
    await t.host.createAgent("ada");
    await t.host.setToolsEnabled("ada", { "weather:forecast": true, "weather:alerts": true });
    await t.host.setSecrets("ada", { api_key: "0123456789abcdef" });
  });
  afterEach(async () => t.close());

  it("refuses the next call once a required secret is deleted", async () => {
    const run = await t.host.startRun({ agent: "ada" });
    expect((await run.call("weather:alerts", {})).errorCode).toBeUndefined();
    await t.host.deleteSecret("ada", "api_key");
    expect((await run.call("weather:alerts", {})).errorCode).toBe("AIRLOCK_TOOL_SECRET_MISSING");
  });

  it("uses the knowledge level set after the previous call", async () => {
    const run = await t.host.startRun({ agent: "ada" });
    expect((await run.call("weather:alerts", {})).result.content).toEqual([
      { type: "text", text: "level read" },
    ]);
    await t.host.setKnowledgeLevel("ada", "none");
    expect((await run.call("weather:alerts", {})).result.content).toEqual([
      { type: "text", text: "level none" },
    ]);
  });

  it("sees a disable made through host.setToolsEnabled", async () => {
    const run = await t.host.startRun({ agent: "ada" });
    expect((await run.call("weather:forecast", {})).errorCode).toBeUndefined();
    await t.host.setToolsEnabled("ada", { "weather:forecast": false });
    expect((await run.call("weather:forecast", {})).errorCode).toBe("AIRLOCK_TOOL_DISABLED");
  });

  it("refuses the next call once the agent is deleted through host.deleteAgent", async () => {
    const run = await t.host.startRun({ agent: "ada" });
    expect((await run.call("weather:forecast", {})).errorCode).toBeUndefined();
    await t.host.deleteAgent("ada");
    expect((await run.call("weather:forecast", {})).errorCode).toMatch(/^AIRLOCK_/);
  });
});

describe("createAgentStateCache", () => {
  let store: Store;
  let reads: number;
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "airlock-agent-cache-"));
    const raw = await openStore({ kind: "sqlite", dataDir: dir });
    reads = 0;
    const counting: Store = Object.create(raw) as Store;
    counting.getAgent = (slug) => {
      reads++;
      return raw.getAgent(slug);
    };
    store = counting;
    await store.ensureAgent("ada");
  });
  afterEach(async () => {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("serves a cached state until the TTL passes, then reads again", async () => {
    let clock = 0;
    const cache = createAgentStateCache(store, { ttlMs: 100, now: () => clock });
    await cache.get("ada");
    await cache.get("ada");
    expect(reads).toBe(1);
    clock = 100;
    await cache.get("ada");
    expect(reads).toBe(2);
  });

  it("reads again after a local write, and never serves a load that raced a write", async () => {
    const cache = createAgentStateCache(store, { ttlMs: 60_000 });
    const tracked = trackAgentWrites(store, () => cache.invalidate());
    const racing = cache.get("ada");
    const write = tracked.setToolEnabled("ada", "weather:forecast", true);
    await Promise.all([racing, write]);
    expect((await cache.get("ada")).enabled.has("weather:forecast")).toBe(true);
    await tracked.putSecret({ agent: "ada", key: "k", ciphertext: "x", updatedAt: new Date().toISOString() });
    expect([...(await cache.get("ada")).secretKeys]).toEqual(["k"]);
  });

  it("does not cache a failed load", async () => {
    const cache = createAgentStateCache(store, { ttlMs: 60_000 });
    await expect(cache.get("nobody")).rejects.toMatchObject({ code: "AIRLOCK_AGENT_NOT_FOUND" });
    await store.ensureAgent("nobody");
    await expect(cache.get("nobody")).resolves.toMatchObject({ agent: { slug: "nobody" } });
  });
});
