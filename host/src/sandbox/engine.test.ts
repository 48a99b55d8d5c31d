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

  it("bounds calls in flight across plugins with maxActiveCalls", async () => {
    const sandbox = createInProcessSandbox({ maxActiveCalls: 1 });
    const plugin = makePlugin({ namespace: "bounded", code, tools: ["counter", "wait"] });
    await sandbox.load(plugin);
    let release: () => void = () => undefined;
    let entered = 0;
    const held: BridgeDispatch = () => {
      entered++;
      return new Promise((resolve) => {
        release = () => resolve(undefined);
      });
    };
    const first = call(sandbox, plugin, "wait", "a", held);
    while (entered === 0) await new Promise((r) => setImmediate(r));
    let secondDone = false;
    const second = call(sandbox, plugin, "counter", "b").then((r) => {
      secondDone = true;
      return r;
    });
    for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
    expect(secondDone).toBe(false);
    release();
    expect((await first).content).toEqual([{ type: "text", text: "done" }]);
    expect((await second).structuredContent).toEqual({ n: 1 });
    await sandbox.close();
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
