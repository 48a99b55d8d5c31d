// Hostile: a call that ends by a limit while its code is still queued — a chain waiting on an
// await the deadline cut short, with more work scheduled after it — must leave nothing behind:
// the same agent's next call runs in a fresh context (no globals of the ended call), and the
// queued work never runs afterwards (no ctx call reaches the host once the await resolves).
// Both sandbox modes, the real bridge and store; the host keeps serving; the canary leaks nowhere.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SandboxPlugin } from "../../host/src/isolation/sandbox/types.ts";
import { makePlugin } from "../support/sandbox-fixtures.ts";
import type { Harness } from "../support/sandbox-harness.ts";
import { GATE_URL, MODES } from "../support/sandbox-harness.ts";
import { expectContained, hostileSetup } from "../support/sandbox-hostile.ts";

const code = `globalThis.__airlockPlugin = { tools: {
  leave: async (_input, ctx) => {
    globalThis.leftBehind = "yes";
    // queued work: runs only if the isolate lives on after this call ended
    ctx.fetch(${JSON.stringify(GATE_URL)}).then(() => ctx.state.set("after", "ran")).catch(() => undefined);
    await ctx.fetch(${JSON.stringify(GATE_URL)});
    return "never";
  },
  peek: async () => ({ leftBehind: typeof globalThis.leftBehind }),
} };`;

describe.each(MODES)("a call ended by a limit leaves nothing behind (%s)", (mode) => {
  let h: Harness;
  let hostile: SandboxPlugin;
  let plugin: SandboxPlugin;
  beforeAll(async () => {
    ({ h, plugin: hostile } = await hostileSetup(mode));
    plugin = makePlugin({ namespace: "leftover", code, tools: ["leave", "peek"], limits: { wallMs: 400 } });
    await h.sandbox.load(plugin);
  });
  afterAll(async () => h.close());

  it("gives the agent a fresh context after AIRLOCK_SANDBOX_TIMEOUT and runs none of the queued work", async () => {
    expect((await h.call(plugin, "peek", {}, { agent: "ada" })).structuredContent).toEqual({
      leftBehind: "undefined",
    });
    const hitsBefore = h.gate.hits;
    const error = await h.callError(plugin, "leave", {}, { agent: "ada" });
    expect(error.code).toBe("AIRLOCK_SANDBOX_TIMEOUT");
    expect(h.gate.hits).toBe(hitsBefore + 2);
    // the same agent, next call: a fresh context
    expect((await h.call(plugin, "peek", {}, { agent: "ada" })).structuredContent).toEqual({
      leftBehind: "undefined",
    });
    // let the held fetches go: the queued continuation would now call ctx.state.set
    const auditsBefore = h.audits.length;
    h.gate.release();
    await new Promise((r) => setTimeout(r, 300));
    expect(h.audits.slice(auditsBefore).filter((a) => a.action === "state.set")).toEqual([]);
    expect(await h.store.getState("ada", "conv-1", "leftover", "after")).toBeNull();
    await expectContained(h, hostile, "ada");
  });
});
