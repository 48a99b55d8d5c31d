// The one conformance suite every Store implementation must pass (SQLite and PostgreSQL run
// exactly these tests). Call `storeConformance(factory)` inside a describe block; the factory
// returns a fresh, empty, migrated store and is called once per test.
// Invariant: tests here state behaviour through the Store interface only, never via SQL.

import type { PluginManifest } from "@airlock/sdk/manifest";
import { beforeEach, expect, it } from "vitest";
import { artifactConformance } from "./conformance-artifacts.ts";
import { authServerConformance } from "./conformance-authz.ts";
import { brokerConformance } from "./conformance-broker.ts";
import { doc, knowledgeConformance } from "./conformance-knowledge.ts";
import { taskConformance } from "./conformance-tasks.ts";
import type { InstalledPluginRecord, Store } from "./types.ts";

export type StoreFactory = () => Promise<Store>;

const manifest = (namespace: string, version: string) =>
  ({ manifestVersion: 1, namespace, version, tools: [] }) as unknown as PluginManifest;

export function installed(namespace: string, version: string): InstalledPluginRecord {
  return {
    namespace,
    version,
    manifest: manifest(namespace, version),
    integrity: `sha512-${namespace}${version}`,
    signer: null,
    source: `file:/tmp/${namespace}-${version}.tgz`,
    path: `/plugins/${namespace}/${version}`,
    installedAt: new Date().toISOString(),
  };
}

export function storeConformance(factory: StoreFactory): void {
  let store: Store;
  beforeEach(async () => {
    store = await factory();
    return () => store.close();
  });
  const s = () => store;

  it("applies migrations idempotently", async () => {
    await store.migrate();
    await store.migrate();
    expect(await store.listAgents()).toEqual([]);
  });

  it("starts a new agent at the read knowledge level and keeps it on ensure", async () => {
    const a = await store.ensureAgent("alpha");
    expect(a).toMatchObject({ slug: "alpha", knowledgeLevel: "read" });
    await store.setKnowledgeLevel("alpha", "manage");
    expect((await store.ensureAgent("alpha")).knowledgeLevel).toBe("manage");
    await store.setKnowledgeLevel("alpha", "none");
    expect((await store.getAgent("alpha"))?.knowledgeLevel).toBe("none");
    expect(await store.getAgent("nobody")).toBeNull();
  });

  it("refuses an unknown knowledge level with AIRLOCK_STORE_INVALID_INPUT", async () => {
    await store.ensureAgent("alpha");
    await expect(store.setKnowledgeLevel("alpha", "admin" as never)).rejects.toMatchObject({
      code: "AIRLOCK_STORE_INVALID_INPUT",
    });
    expect((await store.getAgent("alpha"))?.knowledgeLevel).toBe("read");
  });

  it("deletes an agent together with its secrets, enablement, state and knowledge", async () => {
    await store.ensureAgent("gone");
    await store.ensureAgent("kept");
    for (const a of ["gone", "kept"]) {
      await store.putSecret({ agent: a, key: "k", ciphertext: "c", updatedAt: "t" });
      await store.setToolEnabled(a, "ns:tool", true);
      await store.setState(a, "c1", "ns", "x", "1", 1000);
      await store.putKnowledgeDoc(doc(a, "d1", "hello world"));
    }
    await store.deleteAgent("gone");
    expect(await store.getAgent("gone")).toBeNull();
    expect(await store.listSecrets("gone")).toEqual([]);
    expect(await store.listEnabledTools("gone")).toEqual([]);
    expect(await store.getState("gone", "c1", "ns", "x")).toBeNull();
    expect(await store.searchKnowledge("gone", "hello", 10)).toEqual([]);
    expect(await store.listSecrets("kept")).toHaveLength(1);
    expect(await store.searchKnowledge("kept", "hello", 10)).toHaveLength(1);
  });

  it("finds tokens by hash only and deletes them", async () => {
    const rec = {
      id: "t1",
      role: "agent" as const,
      agent: "alpha",
      label: "ci",
      createdAt: "2026-01-01T00:00:00.000Z",
    };
    await store.putToken(rec, "hash-1");
    expect(await store.findToken("hash-1")).toEqual(rec);
    expect(await store.findToken("t1")).toBeNull();
    await store.deleteToken("t1");
    expect(await store.findToken("hash-1")).toBeNull();
  });

  it("keeps a token's display prefix, and reads a token stored without one as having none", async () => {
    const rec = {
      id: "t9",
      role: "agent" as const,
      agent: null,
      label: "laptop",
      createdAt: "2026-01-03T00:00:00.000Z",
      prefix: "alk_ag_Xy3q",
    };
    await store.putToken(rec, "hash-9");
    expect(await store.findToken("hash-9")).toEqual(rec);
    expect((await store.listTokens()).find((t) => t.id === "t9")?.prefix).toBe("alk_ag_Xy3q");
    const { prefix: _none, ...older } = { ...rec, id: "t10" };
    await store.putToken(older, "hash-10");
    expect("prefix" in ((await store.findToken("hash-10")) ?? {})).toBe(false);
  });

  it("lists token records oldest first, without their hashes", async () => {
    const older = {
      id: "t2",
      role: "operator" as const,
      agent: null,
      label: "",
      createdAt: "2026-01-01T00:00:00.000Z",
    };
    const newer = {
      id: "t3",
      role: "agent" as const,
      agent: "alpha",
      label: "ci",
      createdAt: "2026-01-02T00:00:00.000Z",
    };
    await store.putToken(newer, "hash-3");
    await store.putToken(older, "hash-2");
    expect((await store.listTokens()).filter((t) => t.id === "t2" || t.id === "t3")).toEqual([older, newer]);
    await store.deleteToken("t2");
    expect((await store.listTokens()).some((t) => t.id === "t2")).toBe(false);
  });

  it("records installed plugin versions and round-trips their manifest", async () => {
    await store.putInstalledPlugin(installed("weather", "1.0.0"));
    await store.putInstalledPlugin(installed("weather", "1.1.0"));
    await store.putInstalledPlugin(installed("maps", "2.0.0"));
    expect((await store.getInstalledPlugin("weather", "1.1.0"))?.manifest).toEqual(
      manifest("weather", "1.1.0"),
    );
    expect((await store.listInstalledPlugins("weather")).map((p) => p.version).sort()).toEqual([
      "1.0.0",
      "1.1.0",
    ]);
    expect(await store.listInstalledPlugins()).toHaveLength(3);
    await store.deleteInstalledPlugin("weather", "1.0.0");
    expect(await store.getInstalledPlugin("weather", "1.0.0")).toBeNull();
  });

  it("activates versions keeping the previous one, and rolls back by swapping them", async () => {
    expect(await store.rollbackPlugin("weather")).toBeNull();
    expect(await store.activatePlugin("weather", "1.0.0")).toMatchObject({ active: "1.0.0", previous: null });
    expect(await store.rollbackPlugin("weather")).toBeNull();
    expect(await store.activatePlugin("weather", "1.1.0")).toMatchObject({
      active: "1.1.0",
      previous: "1.0.0",
    });
    expect(await store.activatePlugin("weather", "1.1.0")).toMatchObject({
      active: "1.1.0",
      previous: "1.0.0",
    });
    expect(await store.rollbackPlugin("weather")).toMatchObject({ active: "1.0.0", previous: "1.1.0" });
    expect((await store.listActivations()).map((a) => a.namespace)).toEqual(["weather"]);
    await store.deleteActivation("weather");
    expect(await store.getActivation("weather")).toBeNull();
  });

  it("keeps one worker-tier record per namespace, replaced whole, and deletes it", async () => {
    expect(await store.listPluginWorkers()).toEqual([]);
    const at = "2026-12-01T00:00:00.000Z";
    await store.putPluginWorker({ namespace: "weather", reason: "operator", details: null, updatedAt: at });
    await store.putPluginWorker({ namespace: "maps", reason: "operator", details: null, updatedAt: at });
    const quarantine = { pluginKey: "weather@1.0.0", worker: 0, signal: "SIGABRT" };
    await store.putPluginWorker({
      namespace: "weather",
      reason: "quarantine",
      details: quarantine,
      updatedAt: at,
    });
    expect(await store.listPluginWorkers()).toEqual([
      { namespace: "maps", reason: "operator", details: null, updatedAt: at },
      { namespace: "weather", reason: "quarantine", details: quarantine, updatedAt: at },
    ]);
    await expect(
      store.putPluginWorker({ namespace: "x", reason: "other" as "operator", details: null, updatedAt: at }),
    ).rejects.toMatchObject({ code: "AIRLOCK_STORE_INVALID_INPUT" });
    await store.deletePluginWorker("maps");
    await store.deletePluginWorker("maps");
    expect((await store.listPluginWorkers()).map((r) => r.namespace)).toEqual(["weather"]);
  });

  it("keeps publisher keys per namespace, keeps a key's first row, and deletes one", async () => {
    const key = (namespace: string, keyId: string, addedAt: string) => ({
      namespace,
      keyId,
      pem: `-----BEGIN PUBLIC KEY-----\n${keyId}\n-----END PUBLIC KEY-----\n`,
      addedAt,
    });
    await store.putTrustedKey(key("weather", "SHA256:b", "2026-12-01T00:00:00.000Z"));
    await store.putTrustedKey(key("weather", "SHA256:a", "2026-12-01T00:00:01.000Z"));
    await store.putTrustedKey(key("maps", "SHA256:a", "2026-12-01T00:00:02.000Z"));
    await store.putTrustedKey(key("weather", "SHA256:b", "2026-12-02T00:00:00.000Z"));
    expect(await store.listTrustedKeys("weather")).toEqual([
      key("weather", "SHA256:a", "2026-12-01T00:00:01.000Z"),
      key("weather", "SHA256:b", "2026-12-01T00:00:00.000Z"),
    ]);
    expect((await store.listTrustedKeys()).map((k) => `${k.namespace} ${k.keyId}`)).toEqual([
      "maps SHA256:a",
      "weather SHA256:a",
      "weather SHA256:b",
    ]);
    expect(await store.deleteTrustedKey("weather", "SHA256:a")).toBe(true);
    expect(await store.deleteTrustedKey("weather", "SHA256:a")).toBe(false);
    expect((await store.listTrustedKeys("weather")).map((k) => k.keyId)).toEqual(["SHA256:b"]);
    expect((await store.listTrustedKeys("maps")).map((k) => k.keyId)).toEqual(["SHA256:a"]);
  });

  it("enables tools per agent and clears a namespace's enablement everywhere", async () => {
    await store.setToolEnabled("a", "weather:now", true);
    await store.setToolEnabled("a", "weather:now", true);
    await store.setToolEnabled("a", "weather-x:now", true);
    await store.setToolEnabled("b", "weather:later", true);
    await store.setToolEnabled("b", "maps:route", true);
    await store.setToolEnabled("b", "maps:route", false);
    expect(await store.listEnabledTools("a")).toEqual(["weather-x:now", "weather:now"]);
    expect(await store.deleteToolEnablementForNamespace("weather")).toBe(2);
    expect(await store.listEnabledTools("a")).toEqual(["weather-x:now"]);
    expect(await store.listEnabledTools("b")).toEqual([]);
  });

  it("stores secrets as given (ciphertext), per agent and key", async () => {
    await store.putSecret({ agent: "a", key: "api_key", ciphertext: "c1", updatedAt: "t1" });
    await store.putSecret({ agent: "a", key: "api_key", ciphertext: "c2", updatedAt: "t2" });
    await store.putSecret({ agent: "b", key: "api_key", ciphertext: "c3", updatedAt: "t3" });
    expect(await store.getSecret("a", "api_key")).toEqual({
      agent: "a",
      key: "api_key",
      ciphertext: "c2",
      updatedAt: "t2",
    });
    expect(await store.listSecrets("a")).toHaveLength(1);
    expect(await store.deleteSecret("a", "api_key")).toBe(true);
    expect(await store.deleteSecret("a", "api_key")).toBe(false);
    expect(await store.getSecret("b", "api_key")).not.toBeNull();
  });

  it("keeps conversation state per namespace and refuses a set over the total cap", async () => {
    expect(await store.setState("a", "c", "ns", "k1", '"12345"', 20)).toBe(true);
    expect(await store.setState("a", "c", "ns", "k2", '"123456789"', 20)).toBe(false);
    expect(await store.getState("a", "c", "ns", "k2")).toBeNull();
    expect(await store.setState("a", "c", "ns", "k1", '"1234567890"', 20)).toBe(true);
    expect(await store.setState("a", "c", "other", "k2", '"123456789"', 20)).toBe(true);
    expect(await store.getState("a", "c", "ns", "k1")).toBe('"1234567890"');
    expect(await store.listStateKeys("a", "c", "ns")).toEqual(["k1"]);
    expect(await store.getState("a", "c2", "ns", "k1")).toBeNull();
    await store.deleteState("a", "c", "ns", "k1");
    expect(await store.listStateKeys("a", "c", "ns")).toEqual([]);
  });

  it("never exceeds the state cap when sets race", async () => {
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) => store.setState("a", "c", "ns", `k${i}`, '"xxxxxxxx"', 40)),
    );
    const sizes = await Promise.all(
      (await store.listStateKeys("a", "c", "ns")).map(
        async (k) => k.length + ((await store.getState("a", "c", "ns", k)) ?? "").length,
      ),
    );
    expect(sizes.reduce((x, y) => x + y, 0)).toBeLessThanOrEqual(40);
    expect(results.filter(Boolean)).toHaveLength(sizes.length);
  });

  it("appends audit entries and queries them by agent, plugin, tool, kind and time, newest first", async () => {
    const base = {
      conversationId: null,
      allowed: true,
      success: true,
      error: null,
      durationMs: null,
      details: null,
    };
    await store.appendAudit({
      ...base,
      agent: "a",
      plugin: "p",
      tool: "p:t",
      kind: "capability",
      action: "x",
      at: "2026-01-01T00:00:00Z",
    });
    await store.appendAudit({
      ...base,
      agent: "a",
      plugin: "q",
      tool: "q:t",
      kind: "plugin",
      action: "y",
      at: "2026-01-02T00:00:00Z",
    });
    await store.appendAudit({
      ...base,
      agent: "b",
      plugin: "p",
      tool: "p:u",
      kind: "tool",
      action: "z",
      at: "2026-01-03T00:00:00Z",
      allowed: false,
      success: null,
      error: "denied",
      durationMs: 12.5,
    });
    expect((await store.queryAudit({})).map((e) => e.action)).toEqual(["z", "y", "x"]);
    expect((await store.queryAudit({ agent: "a" })).map((e) => e.action)).toEqual(["y", "x"]);
    expect((await store.queryAudit({ plugin: "p" })).map((e) => e.action)).toEqual(["z", "x"]);
    expect((await store.queryAudit({ tool: "q:t" })).map((e) => e.action)).toEqual(["y"]);
    expect((await store.queryAudit({ kind: "tool" }))[0]).toMatchObject({
      allowed: false,
      success: null,
      error: "denied",
      durationMs: 12.5,
    });
    expect((await store.queryAudit({ since: "2026-01-02T00:00:00Z" })).map((e) => e.action)).toEqual([
      "z",
      "y",
    ]);
    expect((await store.queryAudit({ until: "2026-01-01T12:00:00Z" })).map((e) => e.action)).toEqual(["x"]);
    const page1 = await store.queryAudit({ limit: 2 });
    const page2 = await store.queryAudit({ limit: 2, before: page1[1]!.id });
    expect([...page1, ...page2].map((e) => e.action)).toEqual(["z", "y", "x"]);
    expect(page1[0]!.at).toBe("2026-01-03T00:00:00.000Z");
  });

  it("drops binary values from audit details and keeps the rest", async () => {
    await s().appendAudit({
      agent: "a",
      plugin: "p",
      tool: "p:t",
      conversationId: "c",
      kind: "plugin",
      action: "put",
      allowed: true,
      success: true,
      error: null,
      durationMs: 1,
      details: {
        name: "x.pdf",
        bytes: new Uint8Array([1, 2, 3]),
        nested: { raw: new ArrayBuffer(4), n: 2 },
        list: [new Uint8Array(1), "y"],
      },
    });
    const [e] = await s().queryAudit({ agent: "a" });
    expect(e!.details).toEqual({ name: "x.pdf", nested: { n: 2 }, list: ["y"] });
  });

  it("writes an audit batch whole, in its order, every value as given (nulls, quotes, unicode)", async () => {
    const batch = s().appendAuditBatch;
    if (batch === undefined) return;
    const tricky = 'quote " backslash \\ comma, brace { } NULL é 🦀 \n';
    const entries = Array.from({ length: 7 }, (_, i) => ({
      at: `2026-02-01T00:00:0${i}.000Z`,
      agent: i === 3 ? null : `agent-${i}`,
      plugin: i % 2 === 0 ? null : tricky,
      tool: i === 1 ? "NULL" : `p:t${i}`,
      conversationId: i === 2 ? null : `c${i}`,
      kind: "tool" as const,
      action: `${tricky}${i}`,
      allowed: i !== 4,
      success: i === 5 ? null : i % 2 === 0,
      error: i === 6 ? tricky : null,
      durationMs: i === 0 ? null : i + 0.25,
      details: i === 1 ? null : { i, text: tricky, list: [null, "NULL", { deep: "}" }] },
    }));
    // a small batch, one row, and a wide one (PostgreSQL writes batches past 16 rows another way)
    const wide = Array.from({ length: 40 }, (_, i) => ({ ...entries[i % 7]!, action: `wide-${i}` }));
    await batch.call(s(), entries);
    await batch.call(s(), [entries[0]!]);
    await batch.call(s(), wide);
    const rows = (await s().queryAudit({ since: "2026-02-01T00:00:00Z" })).reverse();
    expect(rows.map(({ id: _id, ...rest }) => rest)).toEqual([...entries, entries[0], ...wide]);
    // ids follow the batch's order
    const ids = rows.map((r) => r.id);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
  });

  it("answers a time filter alike over a narrow and a wide window, newest first, paged with before", async () => {
    const batch = s().appendAuditBatch;
    if (batch === undefined) return;
    // 2,400 entries a second apart, one in ten out of time order (stamped a minute earlier)
    const at = (i: number) =>
      new Date(Date.UTC(2026, 2, 1) + (i % 10 === 5 ? i - 60 : i) * 1000).toISOString();
    const entries = Array.from({ length: 2400 }, (_, i) => ({
      at: at(i),
      agent: "w",
      plugin: null,
      tool: null,
      conversationId: null,
      kind: "tool" as const,
      action: `w-${i}`,
      allowed: true,
      success: true,
      error: null,
      durationMs: null,
      details: null,
    }));
    for (let i = 0; i < entries.length; i += 800) await batch.call(s(), entries.slice(i, i + 800));
    const expected = (from: number, to: number, before?: number) =>
      entries
        .map((e, i) => ({ e, i }))
        .filter(({ e }) => e.at >= at(from) && e.at <= at(to))
        .reverse()
        .map(({ e }) => e.action)
        .slice(before ?? 0, (before ?? 0) + 7);
    const actions = async (from: number, to: number, skip?: number) => {
      const first = await s().queryAudit({ since: at(from), until: at(to), limit: skip ?? 7 });
      if (skip === undefined) return first.map((e) => e.action);
      const page = await s().queryAudit({
        since: at(from),
        until: at(to),
        limit: 7,
        before: first.at(-1)!.id,
      });
      return page.map((e) => e.action);
    };
    expect(await actions(1000, 1040)).toEqual(expected(1000, 1040)); // narrow
    expect(await actions(10, 2300)).toEqual(expected(10, 2300)); // wide
    expect(await actions(10, 2300, 7)).toEqual(expected(10, 2300, 7));
    const until = await s().queryAudit({ until: at(1800), since: at(0), limit: 3 });
    expect(until.map((e) => e.action)).toEqual(expected(0, 1800).slice(0, 3));
  });

  artifactConformance(s);
  knowledgeConformance(s);
  brokerConformance(s);
  taskConformance(s);
  authServerConformance(s);
}
