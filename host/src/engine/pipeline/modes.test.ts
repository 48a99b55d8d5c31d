// The same pipeline behaviours in both sandbox modes (worker processes and in-process): calls,
// ctx capabilities granted per call (knowledge level, state, progress), failures as results.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CallNotification } from "../../isolation/bridge/types.ts";
import type { FixturePlugin } from "./test-fixtures.ts";
import { openTestHost, type TestHost } from "./test-host.ts";

const RO = { readOnlyHint: true };
const probe: FixturePlugin = {
  namespace: "probe",
  tools: [
    {
      name: "level",
      code: "async (input, ctx) => ctx.knowledge ? ctx.knowledge.level : 'absent'",
      annotations: RO,
    },
    {
      name: "counter",
      code: "async (input, ctx) => { const n = ((await ctx.state.get('n')) ?? 0) + 1; await ctx.state.set('n', n); return String(n); }",
      annotations: RO,
    },
    {
      name: "steps",
      code: "async (input, ctx) => { await ctx.progress(1, 2, 'half'); await ctx.log('info', 'done'); return 'ok'; }",
      annotations: RO,
    },
    { name: "boom", code: "async () => { throw new TypeError('bad'); }", annotations: RO },
  ],
};

describe.each(["in-process", "workers"] as const)("pipeline in %s mode", (mode) => {
  let t: TestHost;
  beforeAll(async () => {
    t = await openTestHost([probe], { sandbox: mode === "workers" ? { mode, workers: 1 } : { mode } });
    await t.host.createAgent("ada");
    await t.host.setToolsEnabled(
      "ada",
      Object.fromEntries(probe.tools.map((x) => [`probe:${x.name}`, true])),
    );
  });
  afterAll(async () => t.close());

  const text = (o: { result: { content: Array<{ type: string; text?: string }> } }) =>
    o.result.content[0]?.text;

  it("grants ctx.knowledge at the agent's level, and not at all for none", async () => {
    expect(text(await t.host.callTool("ada", "probe:level", {}))).toBe("read");
    await t.host.setKnowledgeLevel("ada", "manage");
    expect(text(await t.host.callTool("ada", "probe:level", {}))).toBe("manage");
    await t.host.setKnowledgeLevel("ada", "none");
    expect(text(await t.host.callTool("ada", "probe:level", {}))).toBe("absent");
  });

  it("keeps state per conversation of a run", async () => {
    const run = await t.host.startRun({ agent: "ada", conversationId: `c-${mode}` });
    expect(text(await run.call("probe:counter", {}))).toBe("1");
    expect(text(await run.call("probe:counter", {}))).toBe("2");
    const other = await t.host.startRun({ agent: "ada" });
    expect(text(await other.call("probe:counter", {}))).toBe("1");
  });

  it("delivers progress and log notifications to the caller and as events", async () => {
    const received: CallNotification[] = [];
    const events: CallNotification[] = [];
    const off = t.host.on("tool.progress", (e) => events.push(e.notification));
    const out = await t.host.callTool(
      "ada",
      "probe:steps",
      {},
      { agent: "ada", onNotification: (n) => received.push(n) },
    );
    off();
    expect(text(out)).toBe("ok");
    const expected = [
      { type: "progress", progress: 1, total: 2, message: "half" },
      { type: "log", level: "info", message: "done" },
    ];
    expect(received).toEqual(expected);
    expect(events).toEqual(expected);
  });

  it("turns a throwing tool into an error result and keeps serving", async () => {
    const out = await t.host.callTool("ada", "probe:boom", {});
    expect(out.result.isError).toBe(true);
    expect(out.errorCode).toBe("AIRLOCK_SANDBOX_TOOL_THREW");
    const after = await t.host.callTool("ada", "probe:level", {});
    expect([after.errorCode, text(after)]).toEqual([undefined, "absent"]);
  });
});
