// The one conformance suite every Sandbox mode passes (run by sandbox-in-process.test.ts and
// sandbox-workers.test.ts): results and their normalisation, ctx as built in the isolate, the
// core capabilities through the real bridge and SQLite store, limits, queueing, loading.
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { composePlugin } from "@airlock/sdk/build";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resolveLimits } from "../../host/src/isolation/sandbox/limits.ts";
import { fixtureBundle, makePlugin } from "../support/sandbox-fixtures.ts";
import { createHarness, type Harness, type SandboxMode } from "../support/sandbox-harness.ts";

const BASIC_TOOLS = [
  "echo",
  "text",
  "toolResult",
  "ctxInfo",
  { name: "secret", secrets: ["api_key"] },
  "state",
  "audit",
  "notify",
  "counter",
  "fail",
  "failWithBridge",
  "many",
  "wait",
  "gated",
  "hang",
  { name: "fetchText", secrets: ["api_key"] },
  "artifactRoundTrip",
];

const CONTEXT = {
  instanceId: "agent-a",
  conversationId: "conv-1",
  toolId: "basic:nope",
  conversation: [],
  attachments: [],
  knowledgeLevel: null,
};

export function defineSandboxSuite(mode: SandboxMode): void {
  describe(`Sandbox conformance (${mode})`, () => {
    let h: Harness;
    const basic = makePlugin({ namespace: "basic", code: fixtureBundle("basic"), tools: BASIC_TOOLS });
    const small = makePlugin({
      namespace: "small",
      code: fixtureBundle("basic"),
      tools: BASIC_TOOLS,
      limits: { maxInputBytes: 100, capabilityCalls: 3, concurrency: 1, wallMs: 1500 },
    });

    beforeAll(async () => {
      h = await createHarness(mode, { maxStateBytes: 200 });
      await h.sandbox.load(basic);
      await h.sandbox.load(small);
    });
    afterAll(async () => h.close());

    it("reports its mode and the plugins it holds", () => {
      const stats = h.sandbox.stats();
      expect(stats.mode).toBe(mode);
      expect(h.sandbox.mode).toBe(mode);
      expect(stats.loadedPlugins).toBe(2);
    });

    it("normalises a plain-object result into text plus structuredContent", async () => {
      const result = await h.call(basic, "echo", { a: 1, nested: { b: [1, "x", null] } });
      expect(result.structuredContent).toEqual({ echoed: { a: 1, nested: { b: [1, "x", null] } } });
      expect(result.content).toEqual([{ type: "text", text: JSON.stringify(result.structuredContent) }]);
    });

    it("turns a string into one text part and keeps a ToolResult as the tool built it", async () => {
      expect(await h.call(basic, "text", { text: "plain" })).toEqual({
        content: [{ type: "text", text: "plain" }],
      });
      expect(await h.call(basic, "toolResult")).toEqual({
        content: [{ type: "text", text: "hi" }],
        isError: true,
      });
    });

    it("builds ctx from the call's data with frozen conversation and no knowledge when none is granted", async () => {
      const conversation = [{ role: "user" as const, content: "hello" }];
      const attachments = [{ filename: "a.txt", mime: "text/plain", size: 3 }];
      const result = await h.call(
        basic,
        "ctxInfo",
        {},
        { agent: "agent-x", conversationId: "c-9", conversation, attachments },
      );
      expect(result.structuredContent).toEqual({
        instanceId: "agent-x",
        conversationId: "c-9",
        toolId: "basic:ctxInfo",
        conversation,
        attachments,
        frozen: true,
        hasKnowledge: false,
        level: null,
        ref: { $secretRef: "api_key" },
      });
    });

    it("exposes ctx.knowledge with its level only when the call grants one", async () => {
      const result = await h.call(basic, "ctxInfo", {}, { knowledgeLevel: "write" });
      expect(result.structuredContent).toMatchObject({ hasKnowledge: true, level: "write" });
    });

    it("reads a declared secret and reads an undeclared one as undefined", async () => {
      await h.setSecret("agent-a", "api_key", "declared-value");
      await h.setSecret("agent-a", "other_key", "undeclared-value");
      expect((await h.call(basic, "secret", { key: "api_key" })).structuredContent).toEqual({
        value: "declared-value",
      });
      expect((await h.call(basic, "secret", { key: "other_key" })).structuredContent).toEqual({
        value: null,
      });
      expect(h.audits.some((a) => a.action === "secrets.get" && a.allowed && a.agent === "agent-a")).toBe(
        true,
      );
    });

    it("keeps state per conversation and plugin in the store, and refuses a set over the cap", async () => {
      const first = await h.call(basic, "state", { key: "k", value: { n: 1 } }, { conversationId: "s-1" });
      expect(first.structuredContent).toEqual({ before: null, after: { n: 1 }, keys: ["k"] });
      const again = await h.call(basic, "state", { key: "k", value: 2 }, { conversationId: "s-1" });
      expect(again.structuredContent).toMatchObject({ before: { n: 1 }, after: 2 });
      const other = await h.call(basic, "state", { key: "k", value: 3 }, { conversationId: "s-2" });
      expect(other.structuredContent).toMatchObject({ before: null });
      const big = await h.callError(
        basic,
        "state",
        { key: "big", value: "x".repeat(500) },
        { conversationId: "s-1" },
      );
      expect(big.code).toBe("AIRLOCK_SANDBOX_TOOL_THREW");
      expect(big.details?.errorCode).toBe("AIRLOCK_STATE_TOO_LARGE");
      expect(await h.store.getState("agent-a", "s-1", "basic", "big")).toBeNull();
    });

    it("writes ctx.audit.log entries attributed by the grant, not by the entry", async () => {
      await h.call(basic, "audit", {
        entry: { action: "did.thing", success: true, details: { n: 1 }, output: "ok" },
      });
      const rows = await h.store.queryAudit({ kind: "plugin", plugin: "basic" });
      expect(rows[0]).toMatchObject({ action: "did.thing", agent: "agent-a", tool: "audit", success: true });
      expect(rows[0]?.details).toEqual({ n: 1, output: "ok" });
      const bad = await h.callError(basic, "audit", { entry: { action: "x", agent: "someone-else" } });
      expect(bad.details?.errorCode).toBe("AIRLOCK_AUDIT_ENTRY_INVALID");
    });

    it("delivers progress and log notifications to the caller", async () => {
      const before = h.notifications.length;
      await h.call(basic, "notify");
      expect(h.notifications.slice(before)).toEqual([
        { type: "progress", progress: 1, total: 2, message: "half" },
        { type: "log", level: "info", message: "hello" },
      ]);
    });

    it("passes fetch requests with secret refs to the host and decodes the response body as UTF-8", async () => {
      const result = await h.call(basic, "fetchText", { url: "https://api.example.com/x" });
      expect(result.structuredContent).toEqual({
        status: 200,
        text: JSON.stringify({ greeting: "héllo ✓ 😀" }),
        json: { greeting: "héllo ✓ 😀" },
      });
      expect(h.fetchRequests.at(-1)).toEqual([
        "https://api.example.com/x",
        { headers: { authorization: { $secretRef: "api_key" } } },
      ]);
    });

    it("hands artifact bytes across as a Uint8Array both ways", async () => {
      const result = await h.call(basic, "artifactRoundTrip", { text: "héllo" });
      expect(result.structuredContent).toEqual({ handle: "art_1", size: 6, isBytes: true });
    });

    it("rejects a thrown Error with AIRLOCK_SANDBOX_TOOL_THREW carrying its code", async () => {
      const error = await h.callError(basic, "fail");
      expect(error.code).toBe("AIRLOCK_SANDBOX_TOOL_THREW");
      expect(error.message).toBe("nope");
      expect(error.details).toEqual({ errorCode: "MY_FAILURE" });
    });

    it("throws AIRLOCK_SANDBOX_ARGS_NOT_COPYABLE in the isolate for a function argument", async () => {
      const result = await h.call(basic, "failWithBridge");
      expect(result.structuredContent).toEqual({ code: "AIRLOCK_SANDBOX_ARGS_NOT_COPYABLE", isError: true });
    });

    it("stops capability calls at the plugin's capabilityCalls", async () => {
      const result = await h.call(small, "many", { n: 10 });
      expect(result.structuredContent).toEqual({ done: 3, code: "AIRLOCK_BRIDGE_CALL_LIMIT" });
      expect(h.audits.some((a) => a.error === "AIRLOCK_BRIDGE_CALL_LIMIT" && a.allowed === false)).toBe(true);
    });

    it("refuses an input over maxInputBytes and an unknown tool or plugin", async () => {
      expect((await h.callError(small, "echo", { text: "x".repeat(200) })).code).toBe(
        "AIRLOCK_SANDBOX_INPUT_TOO_LARGE",
      );
      const unknownTool = h.sandbox.call(
        {
          pluginKey: basic.key,
          tool: "nope",
          input: {},
          token: "none",
          context: CONTEXT,
          signal: AbortSignal.timeout(30_000),
        },
        h.bridge.dispatch,
      );
      await expect(unknownTool).rejects.toMatchObject({ code: "AIRLOCK_SANDBOX_TOOL_NOT_FOUND" });
      const ghost = makePlugin({ namespace: "ghost", code: fixtureBundle("basic"), tools: ["echo"] });
      expect((await h.callError(ghost, "echo")).code).toBe("AIRLOCK_SANDBOX_PLUGIN_NOT_LOADED");
    });

    it("ends a call at its wall-clock deadline and at the host's signal, saying which", async () => {
      const stalled = await h.callError(small, "hang");
      expect(stalled.code).toBe("AIRLOCK_SANDBOX_TIMEOUT");
      expect(stalled.details).toEqual({ reason: "wallMs", wallMs: small.limits.wallMs });
      const controller = new AbortController();
      const pending = h.callError(basic, "gated", {}, { signal: controller.signal });
      await h.gate.reached(h.gate.hits + 1);
      controller.abort();
      const aborted = await pending;
      expect(aborted.code).toBe("AIRLOCK_SANDBOX_TIMEOUT");
      expect(aborted.details).toEqual({ reason: "signal", wallMs: basic.limits.wallMs });
      h.gate.release();
      expect((await h.call(basic, "echo", { ok: 1 })).structuredContent).toEqual({ echoed: { ok: 1 } });
    });

    it("keeps one context per agent, reused across calls", async () => {
      const a1 = await h.call(basic, "counter", {}, { agent: "counter-a" });
      const a2 = await h.call(basic, "counter", {}, { agent: "counter-a" });
      const b1 = await h.call(basic, "counter", {}, { agent: "counter-b" });
      expect([a1, a2, b1].map((r) => r.structuredContent)).toEqual([
        { count: 1 },
        { count: 2 },
        { count: 1 },
      ]);
    });

    it("queues calls past the plugin's concurrency", async () => {
      const queued = makePlugin({
        namespace: "queued",
        code: fixtureBundle("basic"),
        tools: ["gated"],
        limits: { concurrency: 1 },
      });
      await h.sandbox.load(queued);
      const hits = h.gate.hits;
      const mark = h.events.length;
      const first = h.call(queued, "gated");
      await h.gate.reached(hits + 1);
      const second = h.call(queued, "gated");
      h.gate.release();
      await h.gate.reached(hits + 2);
      h.gate.release();
      expect((await first).content).toEqual([{ type: "text", text: "through" }]);
      expect((await second).content).toEqual([{ type: "text", text: "through" }]);
      // the second call reached the gate only after the first had gone all the way through
      const after = "log:through the gate";
      expect(h.events.slice(mark)).toEqual(["gate", after, "gate", after]);
    });

    it("fails a call in flight and one queued behind it when the plugin is unloaded", async () => {
      const doomed = makePlugin({
        namespace: "doomed",
        code: fixtureBundle("basic"),
        tools: ["gated"],
        limits: { concurrency: 1 },
      });
      await h.sandbox.load(doomed);
      const hits = h.gate.hits;
      const running = h.callError(doomed, "gated");
      await h.gate.reached(hits + 1);
      // called directly (no awaits before it reaches the sandbox) so it is queued before the unload
      const grant = h.bridge.issueGrant({
        agent: "agent-a",
        conversationId: "c",
        manifest: doomed.manifest,
        tool: "gated",
        knowledgeLevel: null,
        capabilityCalls: 5,
      });
      const queued = h.sandbox.call(
        {
          pluginKey: doomed.key,
          tool: "gated",
          input: {},
          token: grant.token,
          context: CONTEXT,
          signal: AbortSignal.timeout(30_000),
        },
        h.bridge.dispatch,
      );
      await h.sandbox.unload(doomed.key);
      expect((await running).code).toBe("AIRLOCK_SANDBOX_UNLOADED");
      await expect(queued).rejects.toMatchObject({ code: "AIRLOCK_SANDBOX_UNLOADED" });
      h.bridge.revoke(grant.token);
      h.gate.release();
      expect(h.gate.hits).toBe(hits + 1);
    });

    it("refuses a bundle that does not compile, throws at load or lacks a manifest tool", async () => {
      const cases = [
        "this is not javascript(",
        "throw new Error('boom')",
        "globalThis.__airlockPlugin = { tools: {} };",
      ];
      for (const code of cases) {
        const bad = makePlugin({ namespace: "bad", code, tools: ["echo"] });
        await expect(h.sandbox.load(bad)).rejects.toMatchObject({ code: "AIRLOCK_SANDBOX_BUNDLE_INVALID" });
      }
      expect((await h.call(basic, "text", { text: "fine" })).content).toEqual([
        { type: "text", text: "fine" },
      ]);
    });

    it("replaces a plugin loaded again with other code, and forgets an unloaded one", async () => {
      const v1 = makePlugin({ namespace: "swap", code: fixtureBundle("basic"), tools: ["echo"] });
      const v2code = 'globalThis.__airlockPlugin = { tools: { echo: () => "v2" } };';
      const v2 = makePlugin({ namespace: "swap", code: v2code, tools: ["echo"] });
      await h.sandbox.load(v1);
      await h.sandbox.load(v2);
      expect((await h.call(v2, "echo")).content).toEqual([{ type: "text", text: "v2" }]);
      await h.sandbox.unload(v2.key);
      expect((await h.callError(v2, "echo")).code).toBe("AIRLOCK_SANDBOX_PLUGIN_NOT_LOADED");
    });

    it("runs a first-party plugin built by the SDK: Zod-parsed input, ctx.artifacts, {success, result}", async () => {
      const { manifest, bundle } = await composePlugin(
        fileURLToPath(new URL("../../plugins/render", import.meta.url)),
      );
      const render = {
        key: `render@${manifest.version}`,
        manifest,
        code: Buffer.from(bundle).toString("utf8"),
        limits: resolveLimits(),
      };
      await h.sandbox.load(render);
      const input = { columns: ["city", "temp"], rows: [["Oslo", "3"]], filename: "t" };
      const result = await h.call(render, "renderCsv", input);
      expect(result.structuredContent).toMatchObject({ filename: "t.csv", mime: "text/csv", rows: 1 });
      const refused = await h.callError(render, "renderCsv", { columns: [] });
      expect(refused.code).toBe("AIRLOCK_SANDBOX_TOOL_THREW");
    });

    it("writes a V8 code cache keyed by the bundle's integrity and loads from it", async () => {
      const dir = mkdtempSync(join(tmpdir(), "airlock-cache-"));
      try {
        const codeCachePath = join(dir, "cache", "basic.v8");
        const cached = makePlugin({
          namespace: "cached",
          code: fixtureBundle("basic"),
          tools: ["echo"],
          codeCachePath,
          codeCacheKey: randomBytes(32).toString("base64"),
        });
        await h.sandbox.load(cached);
        expect(existsSync(codeCachePath)).toBe(true);
        expect(readFileSync(codeCachePath).toString("latin1")).toContain(cached.manifest.bundle.integrity);
        const written = statSync(codeCachePath).ino;
        await h.sandbox.unload(cached.key);
        await h.sandbox.load(cached);
        // accepted, not rejected and rewritten (a rewrite renames a new file into place)
        expect(statSync(codeCachePath).ino).toBe(written);
        expect((await h.call(cached, "echo", { c: 1 })).structuredContent).toEqual({ echoed: { c: 1 } });
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });
}
