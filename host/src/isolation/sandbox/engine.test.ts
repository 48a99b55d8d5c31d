// Engine knobs that the shared suite does not vary: the per-isolate context cap (least recently
// used idle contexts are released) and the engine-wide bound on calls in flight.
import { describe, expect, it } from "vitest";
import type { BridgeDispatch } from "../bridge/types.ts";
import { createInProcessSandbox } from "./in-process.ts";
import { makePlugin } from "./plugin-fixture.ts";
import type { Sandbox, SandboxPlugin } from "./types.ts";

const code = `globalThis.__airlockPlugin = { tools: {
  counter: async () => { globalThis.n = (globalThis.n || 0) + 1; return { n: globalThis.n }; },
  wait: async (_input, ctx) => { await ctx.secrets.get("x"); return "done"; },
} };`;
const noBridge: BridgeDispatch = async () => undefined;

function call(sandbox: Sandbox, plugin: SandboxPlugin, tool: string, agent: string, bridge = noBridge) {
  const context = {
    instanceId: agent,
    conversationId: "c",
    toolId: `t:${tool}`,
    conversation: [],
    attachments: [],
    knowledgeLevel: null,
  };
  return sandbox.call(
    { pluginKey: plugin.key, tool, input: {}, token: "t", context, signal: AbortSignal.timeout(30_000) },
    bridge,
  );
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
});
