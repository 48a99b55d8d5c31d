// Fair use on the sandbox's side of the bridge, in a real worker process: a tool's ctx calls past
// its cap are refused in the isolate and never reach the host (the host hears only their count,
// through BridgeDispatch.refusedBefore); calls whose arguments would make the worker hold too many
// bytes for the host are refused with AIRLOCK_BRIDGE_BUSY, reported once each kind; and a worker
// the supervisor kills for not answering its pings names the plugin that held it, which is
// quarantined like the plugin of a V8 abort.
import { afterEach, describe, expect, it } from "vitest";
import type { BridgeDispatch } from "../../bridge/types.ts";
import { MAX_WAITING_BYTES } from "../call-meter.ts";
import { makePlugin } from "../plugin-fixture.ts";
import type { SandboxPlugin } from "../types.ts";
import type { QuarantineNotice } from "./worker-tiers.ts";
import { createWorkerSandbox, type WorkerSandbox } from "./workers.ts";

const code = `globalThis.__airlockPlugin = { tools: {
  flood: async (input, ctx) => {
    const m = "m".repeat(1024);
    const codes = {};
    const seen = (e) => { codes[e.code] = (codes[e.code] ?? 0) + 1; };
    for (let i = 0; i < input.n; i++) ctx.log("info", m).catch(seen);
    await new Promise((r) => ctx.log("info", "last").then(r, (e) => { seen(e); r(); }));
    return codes;
  },
  big: async (input, ctx) => {
    const v = "b".repeat(input.size);
    const codes = await Promise.all(Array.from({ length: input.n }, (_, i) =>
      ctx.state.set("k" + i, v).then(() => "ok", (e) => e.code)));
    return [...new Set(codes)].sort();
  },
  hold: async () => { for (;;) {} },
  fine: async () => "fine",
} };`;

let sandbox: WorkerSandbox | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

interface Heard {
  dispatched: number;
  refused: Array<[string, string, string, number]>;
}

function bridge(answer: (n: number) => Promise<unknown> = async () => undefined): {
  dispatch: BridgeDispatch;
  heard: Heard;
} {
  const heard: Heard = { dispatched: 0, refused: [] };
  const dispatch: BridgeDispatch = (_token, _capability, _method) => answer(++heard.dispatched);
  dispatch.refusedBefore = (_token, capability, method, code, count) => {
    heard.refused.push([`${capability}.${method}`, code, String(count), count]);
  };
  return { dispatch, heard };
}

function run(plugin: SandboxPlugin, tool: string, input: unknown, dispatch: BridgeDispatch) {
  const context = {
    instanceId: "a",
    conversationId: "c",
    toolId: `${plugin.manifest.namespace}:${tool}`,
    conversation: [],
    attachments: [],
    knowledgeLevel: null,
  };
  return sandbox!.call(
    { pluginKey: plugin.key, tool, input, token: "t", context, signal: AbortSignal.timeout(60_000) },
    dispatch,
  );
}

const tools = ["flood", "big", "hold", "fine"];

describe("the worker's meter of ctx calls", () => {
  it("sends capabilityCalls + 1 calls and refuses the rest in the isolate, counted for the host", async () => {
    sandbox = createWorkerSandbox({ workers: 1, onLog: () => undefined });
    const plugin = makePlugin({ namespace: "flood", code, tools, limits: { capabilityCalls: 10 } });
    await sandbox.load(plugin);
    const { dispatch, heard } = bridge();
    const result = await run(plugin, "flood", { n: 5000 }, dispatch);
    // 11 crossed (the host ends the call at the 11th); 4,990 refused where they were made
    expect(result.structuredContent ?? JSON.parse((result.content[0] as { text: string }).text)).toEqual({
      AIRLOCK_BRIDGE_CALL_LIMIT: 4990,
    });
    expect(heard.dispatched).toBe(11);
    expect(heard.refused).toEqual([["ctx.call", "AIRLOCK_BRIDGE_CALL_LIMIT", "4990", 4990]]);
  });

  it("refuses calls past the bytes a call may have waiting with AIRLOCK_BRIDGE_BUSY, told once per kind", async () => {
    sandbox = createWorkerSandbox({ workers: 1, onLog: () => undefined });
    const plugin = makePlugin({ namespace: "big", code, tools });
    await sandbox.load(plugin);
    // the host holds every answer until all were asked: what waits is what the worker holds
    let release: () => void = () => undefined;
    const held = new Promise<void>((r) => {
      release = r;
    });
    const { dispatch, heard } = bridge(async () => {
      await held;
      return undefined;
    });
    const size = 1024 * 1024;
    const call = run(plugin, "big", { size, n: 40 }, dispatch);
    await expect.poll(() => heard.refused.length, { timeout: 20_000 }).toBe(1);
    release();
    const result = await call;
    expect(JSON.parse((result.content[0] as { text: string }).text)).toEqual(["AIRLOCK_BRIDGE_BUSY", "ok"]);
    const admitted = Math.floor(MAX_WAITING_BYTES / (size + 16));
    expect(heard.dispatched).toBe(admitted);
    expect(heard.refused[0]).toEqual(["state.set", "AIRLOCK_BRIDGE_BUSY", "1", 1]);
    const total = heard.refused.reduce((n, r) => n + r[3], 0);
    expect(total).toBe(40 - admitted);
  });
});

describe("a worker the supervisor kills", () => {
  it("names the plugin that held it, which is quarantined into a worker of its own", async () => {
    const notices: QuarantineNotice[] = [];
    sandbox = createWorkerSandbox({
      workers: 1,
      pingIntervalMs: 100,
      pingTimeoutMs: 1000,
      onLog: () => undefined,
      onQuarantine: (n) => notices.push(n),
    });
    // far more CPU than the ping timeout: no budget stops it first, so the supervisor must
    const holder = makePlugin({
      namespace: "holder",
      code,
      tools,
      limits: { cpuMs: 30_000, wallMs: 30_000 },
    });
    const bystander = makePlugin({ namespace: "bystander", code, tools });
    await sandbox.load(holder);
    await sandbox.load(bystander);
    const { dispatch } = bridge();
    await expect(run(holder, "hold", {}, dispatch)).rejects.toMatchObject({
      code: "AIRLOCK_SANDBOX_WORKER_CRASHED",
    });
    await expect.poll(() => notices.length, { timeout: 10_000 }).toBe(1);
    expect(notices[0]).toEqual({
      pluginKey: "holder@1.0.0",
      namespace: "holder",
      worker: 0,
      signal: "SIGKILL",
    });
    expect(sandbox.pluginWorkers("holder@1.0.0")?.quarantined).toBe(true);
    expect(await run(bystander, "fine", {}, dispatch)).toMatchObject({
      content: [{ type: "text", text: "fine" }],
    });
  });
});
