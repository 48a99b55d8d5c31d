// Engine knobs that the shared suite does not vary: the per-isolate context cap (least recently
// used idle contexts are released) and the engine-wide bound on calls in flight; and when the
// code cache is made again after a first call (after its answer, before the isolate goes).
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { BridgeDispatch } from "../bridge/types.ts";
import { readCodeCache } from "./code-cache.ts";
import { createInProcessSandbox } from "./in-process.ts";
import { makePlugin } from "./plugin-fixture.ts";
import type { Sandbox, SandboxPlugin } from "./types.ts";

const code = `globalThis.__airlockPlugin = { tools: {
  counter: async () => { globalThis.n = (globalThis.n || 0) + 1; return { n: globalThis.n }; },
  wait: async (_input, ctx) => { await ctx.secrets.get("x"); return "done"; },
} };`;
const noBridge: BridgeDispatch = async () => undefined;

function call(
  sandbox: Sandbox,
  plugin: SandboxPlugin,
  tool: string,
  agent: string,
  bridge = noBridge,
  signal = AbortSignal.timeout(30_000),
) {
  const context = {
    instanceId: agent,
    conversationId: "c",
    toolId: `t:${tool}`,
    conversation: [],
    attachments: [],
    knowledgeLevel: null,
  };
  return sandbox.call({ pluginKey: plugin.key, tool, input: {}, token: "t", context, signal }, bridge);
}

describe("engine", () => {
  it("releases the least recently used agent context past maxContextsPerIsolate", async () => {
    const sandbox = createInProcessSandbox({ maxContextsPerIsolate: 2 });
    const plugin = makePlugin({ namespace: "lru", code, tools: ["counter", "wait"] });
    await sandbox.load(plugin);
    const count = async (agent: string) => (await call(sandbox, plugin, "counter", agent)).structuredContent;
    expect(await count("a")).toEqual({ n: 1 });
    expect(await count("b")).toEqual({ n: 1 });
    expect(await count("a")).toEqual({ n: 2 });
    expect(await count("c")).toEqual({ n: 1 }); // evicts b, the least recently used
    expect(await count("a")).toEqual({ n: 3 });
    expect(await count("b")).toEqual({ n: 1 });
    await sandbox.close();
  });

  // Two calls that each hold at the bridge until released: with maxActiveCalls = 1 the second
  // must not enter plugin code (reach the bridge) while the first is in flight, however long it
  // waits; with 2 both enter. Without the bound the first case fails: the second enters at once.
  async function inFlight(
    maxActiveCalls: number,
  ): Promise<{ entered: string[]; settle: () => Promise<void> }> {
    const sandbox = createInProcessSandbox({ maxActiveCalls });
    const a = makePlugin({ namespace: `bounded-a${maxActiveCalls}`, code, tools: ["counter", "wait"] });
    const b = makePlugin({ namespace: `bounded-b${maxActiveCalls}`, code, tools: ["counter", "wait"] });
    await sandbox.load(a);
    await sandbox.load(b);
    const entered: string[] = [];
    const releases: Array<() => void> = [];
    const held =
      (name: string): BridgeDispatch =>
      () => {
        entered.push(name);
        return new Promise((resolve) => releases.push(() => resolve(undefined)));
      };
    const first = call(sandbox, a, "wait", "x", held("first"));
    while (entered.length === 0) await new Promise((r) => setImmediate(r));
    const second = call(sandbox, b, "wait", "y", held("second"));
    if (maxActiveCalls >= 2) {
      // it may: it enters once its context is made, however long a loaded machine takes
      const until = Date.now() + 10_000;
      while (entered.length < 2 && Date.now() < until) await new Promise((r) => setTimeout(r, 5));
    } else {
      await new Promise((r) => setTimeout(r, 300)); // ample time for the second to enter if it could
    }
    const snapshot = [...entered];
    return {
      entered: snapshot,
      async settle() {
        while (releases.length > 0 || entered.length < 2) {
          releases.shift()?.();
          await new Promise((r) => setTimeout(r, 5));
        }
        expect((await first).content).toEqual([{ type: "text", text: "done" }]);
        expect((await second).content).toEqual([{ type: "text", text: "done" }]);
        expect(entered).toEqual(["first", "second"]);
        await sandbox.close();
      },
    };
  }

  it("bounds calls in flight across plugins with maxActiveCalls", async () => {
    const one = await inFlight(1);
    expect(one.entered).toEqual(["first"]);
    await one.settle();
    const two = await inFlight(2);
    expect(two.entered).toEqual(["first", "second"]);
    await two.settle();
  });

  it("refuses calls after close with AIRLOCK_SANDBOX_CLOSED", async () => {
    const sandbox = createInProcessSandbox();
    const plugin = makePlugin({ namespace: "closing", code, tools: ["counter", "wait"] });
    await sandbox.load(plugin);
    await sandbox.close();
    await expect(call(sandbox, plugin, "counter", "a")).rejects.toMatchObject({
      code: "AIRLOCK_SANDBOX_CLOSED",
    });
  });

  // A call that ends by a limit retires its generation; the next call makes a new one, and the
  // bundle compiles in it (off the host's thread: a ~1 MB bundle takes several turns of the event
  // loop). Calls arriving during that compile used to be handed the new generation before its
  // bundle existed and were refused as AIRLOCK_SANDBOX_BUNDLE_INVALID ("Cannot read properties of
  // null"): a healthy bundle must never be called invalid, however calls interleave with a make.
  it("never calls a healthy bundle invalid while its isolate's replacement compiles", async () => {
    const filler = Array.from({ length: 20_000 }, (_, i) => `function f${i}(a) { return a + ${i}; }`);
    const big = `${filler.join("\n")}
globalThis.__airlockPlugin = { tools: {
  ok: async () => "ok",
  hang: async () => { await new Promise(() => {}); },
} };`;
    const sandbox = createInProcessSandbox();
    const plugin = makePlugin({ namespace: "remade", code: big, tools: ["ok", "hang"] });
    await sandbox.load(plugin);
    // ended by its caller's deadline: the generation is retired and disposed
    await expect(call(sandbox, plugin, "hang", "a", noBridge, AbortSignal.timeout(50))).rejects.toMatchObject(
      {
        code: "AIRLOCK_SANDBOX_TIMEOUT",
      },
    );
    const outcome = (p: Promise<{ content: unknown }>) =>
      p.then(
        (r) => JSON.stringify(r.content),
        (e: { code?: string }) => String(e.code),
      );
    const first = outcome(call(sandbox, plugin, "ok", "a"));
    let settled = false;
    void first.finally(() => {
      settled = true;
    });
    // one more call on every turn of the loop until the first (which makes the generation) is done
    const during: Array<Promise<string>> = [];
    while (!settled && during.length < 30) {
      await new Promise((r) => setImmediate(r));
      during.push(
        outcome(call(sandbox, plugin, "ok", `agent-${during.length}`, noBridge, AbortSignal.timeout(10_000))),
      );
    }
    expect(during.length).toBeGreaterThan(1); // calls did arrive while the bundle compiled
    const ok = JSON.stringify([{ type: "text", text: "ok" }]);
    expect(await first).toBe(ok);
    expect(new Set(await Promise.all(during))).toEqual(new Set([ok]));
    await sandbox.close();
  });

  // The cache the first compile produced holds only what was compiled then; the one made again
  // after the first call also holds the tool's code. The call must not wait for it, and unload
  // and close must not drop it.
  it.each(["unload", "close"] as const)(
    "answers a first call before making the code cache again, and %s waits for it",
    async (end) => {
      const dir = mkdtempSync(join(tmpdir(), "airlock-warm-"));
      const key = randomBytes(32);
      const path = join(dir, "p.cache");
      const plugin = makePlugin({
        namespace: `warm${end}`,
        code,
        tools: ["counter", "wait"],
        codeCachePath: path,
        codeCacheKey: key.toString("base64"),
      });
      const cached = () => {
        const read = readCodeCache(path, plugin.manifest.bundle.integrity, key);
        if (!("bytes" in read)) throw new Error("no verifying cache file");
        return read.bytes;
      };
      const sandbox = createInProcessSandbox();
      try {
        await sandbox.load(plugin);
        const first = cached();
        expect((await call(sandbox, plugin, "counter", "a")).structuredContent).toEqual({ n: 1 });
        expect(cached().equals(first)).toBe(true); // answered before the cache was made again
        if (end === "unload") await sandbox.unload(plugin.key);
        else await sandbox.close();
        expect(cached().equals(first)).toBe(false);
      } finally {
        await sandbox.close();
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );
});
