// Workers mode spreads one plugin version over several workers: a version whose worker is busy
// is loaded into another, calls go to the least busy holder, and the plugin's `concurrency` still
// bounds its calls across all workers together. Calls are held inside the tool by a gated bridge
// (no timing): "busy" is a call in flight, observed through pluginWorkers() and stats().
// Closing a sandbox while its workers are still starting ends them quietly (no crash on the way out).
// A worker process starts on its first load, not with the sandbox.
import { AirlockError } from "@airlock/sdk/errors";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { BridgeDispatch } from "../../bridge/types.ts";
import { makePlugin } from "../plugin-fixture.ts";
import type { SandboxPlugin } from "../types.ts";
import { createWorkerSandbox, type WorkerSandbox } from "./workers.ts";

// waits at the gate (a ctx call the test holds), then burns CPU: a CPU-bound tool
const code = `globalThis.__airlockPlugin = { tools: {
  spin: async (_input, ctx) => {
    await ctx.state.get("gate");
    let x = 0;
    for (let i = 0; i < 200000; i++) x = (x + i) % 1000003;
    return { x };
  },
} };`;

function gate() {
  const held: Array<() => void> = [];
  let open = false;
  let entered = 0;
  const bridge: BridgeDispatch = () => {
    entered++;
    if (open) return Promise.resolve(undefined);
    return new Promise((resolve) => held.push(() => resolve(undefined)));
  };
  return {
    bridge,
    get entered() {
      return entered;
    },
    release() {
      open = true;
      for (const r of held.splice(0)) r();
    },
  };
}

function spin(sandbox: WorkerSandbox, plugin: SandboxPlugin, agent: string, bridge: BridgeDispatch) {
  const context = {
    instanceId: agent,
    conversationId: "c",
    toolId: "t:spin",
    conversation: [],
    attachments: [],
    knowledgeLevel: null,
  };
  return sandbox.call(
    {
      pluginKey: plugin.key,
      tool: "spin",
      input: {},
      token: "t",
      context,
      signal: AbortSignal.timeout(60_000),
    },
    bridge,
  );
}

const waitFor = (check: () => void) => vi.waitFor(check, { timeout: 20_000, interval: 10 });

describe("workers: one plugin in several workers", () => {
  let sandbox: WorkerSandbox | undefined;
  afterEach(async () => {
    await sandbox?.close();
    sandbox = undefined;
  });

  it("loads a busy plugin into a second worker, serves calls there and keeps concurrency across both", async () => {
    sandbox = createWorkerSandbox({ workers: 2, onLog: () => undefined });
    const plugin = makePlugin({ namespace: "spread", code, tools: ["spin"], limits: { concurrency: 3 } });
    await sandbox.load(plugin);
    expect(sandbox.pluginWorkers(plugin.key)?.workers).toHaveLength(1);
    const g = gate();
    const calls = [spin(sandbox, plugin, "a", g.bridge)];
    await waitFor(() => expect(g.entered).toBe(1));
    calls.push(spin(sandbox, plugin, "b", g.bridge)); // its worker is busy: load it into the other
    await waitFor(() => expect(sandbox?.pluginWorkers(plugin.key)?.workers).toHaveLength(2));
    await waitFor(() => expect(g.entered).toBe(2));
    calls.push(spin(sandbox, plugin, "c", g.bridge)); // the least busy holder: the second worker
    await waitFor(() => expect(g.entered).toBe(3));
    calls.push(spin(sandbox, plugin, "d", g.bridge)); // a 4th would pass concurrency 3: it queues
    await waitFor(() => expect(sandbox?.pluginWorkers(plugin.key)?.queued).toBe(1));
    expect(g.entered).toBe(3);
    expect(sandbox.stats().busyCalls).toBe(3);
    const during = sandbox.pluginWorkers(plugin.key)!.workers;
    expect(during.map((w) => w.inFlight)).toEqual([2, 1]);
    g.release();
    const results = await Promise.all(calls);
    for (const r of results) expect(r.isError).not.toBe(true);
    const after = sandbox.pluginWorkers(plugin.key)!;
    expect(after.queued).toBe(0);
    expect(after.workers.every((w) => w.served > 0)).toBe(true);
    expect(after.workers.reduce((n, w) => n + w.served, 0)).toBe(4);
    expect(sandbox.stats().busyCalls).toBe(0);
    expect(new Set(after.workers.map((w) => w.pid)).size).toBe(2);
    expect(sandbox.workerPids()).toEqual(expect.arrayContaining(after.workers.map((w) => w.pid)));
  });

  it("keeps a plugin in one worker when maxWorkersPerPlugin is 1", async () => {
    sandbox = createWorkerSandbox({ workers: 2, maxWorkersPerPlugin: 1, onLog: () => undefined });
    const plugin = makePlugin({ namespace: "single", code, tools: ["spin"], limits: { concurrency: 4 } });
    await sandbox.load(plugin);
    const g = gate();
    const calls = ["a", "b", "c"].map((agent) => spin(sandbox!, plugin, agent, g.bridge));
    await waitFor(() => expect(g.entered).toBe(3));
    g.release();
    await Promise.all(calls);
    const placed = sandbox.pluginWorkers(plugin.key)!;
    expect(placed.workers).toHaveLength(1);
    expect(placed.workers[0]?.served).toBe(3);
  });

  it("fails a killed worker's calls with AIRLOCK_SANDBOX_WORKER_CRASHED while the other holder serves, and unloads everywhere", async () => {
    sandbox = createWorkerSandbox({ workers: 2, onLog: () => undefined });
    const plugin = makePlugin({ namespace: "crash", code, tools: ["spin"], limits: { concurrency: 4 } });
    await sandbox.load(plugin);
    const g = gate();
    const first = [spin(sandbox, plugin, "a", g.bridge)];
    await waitFor(() => expect(g.entered).toBe(1));
    first.push(spin(sandbox, plugin, "b", g.bridge));
    await waitFor(() => expect(sandbox?.pluginWorkers(plugin.key)?.workers).toHaveLength(2));
    await waitFor(() => expect(g.entered).toBe(2));
    const survivor = spin(sandbox, plugin, "c", g.bridge);
    await waitFor(() => expect(g.entered).toBe(3));
    const [busy] = sandbox.pluginWorkers(plugin.key)!.workers.filter((w) => w.inFlight === 2);
    process.kill(busy!.pid!, "SIGKILL");
    for (const outcome of await Promise.allSettled(first)) {
      expect(outcome.status).toBe("rejected");
      const reason = (outcome as PromiseRejectedResult).reason as AirlockError;
      expect(reason).toBeInstanceOf(AirlockError);
      expect(reason.code).toBe("AIRLOCK_SANDBOX_WORKER_CRASHED");
    }
    g.release();
    expect((await survivor).isError).not.toBe(true);
    expect(sandbox.stats().busyCalls).toBe(0); // the dead worker's calls are no longer counted
    expect((await spin(sandbox, plugin, "a", g.bridge)).isError).not.toBe(true);
    await sandbox.unload(plugin.key);
    expect(sandbox.pluginWorkers(plugin.key)).toBeUndefined();
    await expect(spin(sandbox, plugin, "a", g.bridge)).rejects.toMatchObject({
      code: "AIRLOCK_SANDBOX_PLUGIN_NOT_LOADED",
    });
  });
});

/** Whether a process of this id still exists (signal 0 only checks). */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ESRCH") return false;
    throw error;
  }
}

describe("workers start on first use", () => {
  it("starts no worker process before the first load, then only the one that load needs", async () => {
    const sandbox = createWorkerSandbox({ workers: 2 });
    try {
      expect(sandbox.workerPids()).toEqual([]);
      expect(sandbox.stats()).toMatchObject({ workers: 2, restarts: 0 });
      await sandbox.load(makePlugin({ namespace: "first", code, tools: ["spin"] }));
      expect(sandbox.workerPids()).toHaveLength(1);
    } finally {
      await sandbox.close();
    }
  });
});

describe("closing a workers sandbox while its workers start", () => {
  // close() resolves once the processes have exited (the test's timeout bounds how long that may
  // take: a wall-clock figure is a benchmark, not a gate)
  it("ends them without a crash in its log: no worker process outlives close()", async () => {
    for (let round = 0; round < 3; round++) {
      const lines: string[] = [];
      const starting = createWorkerSandbox({ workers: 2, onLog: (line) => lines.push(line) });
      // two loads start both workers (each goes to the worker holding fewest plugins)
      const loads = ["one", "two"].map((namespace) =>
        starting.load(makePlugin({ namespace, code, tools: ["spin"] })).catch(() => undefined),
      );
      const pids = starting.workerPids();
      expect(pids).toHaveLength(2);
      await starting.close();
      await Promise.all(loads);
      expect(pids.filter(isAlive)).toEqual([]);
      // a worker that outlived the marker directory would print its ENOENT stack here
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(lines.filter((l) => /ENOENT|Error|exited/.test(l))).toEqual([]);
    }
  });
});

// A worker whose calls all wait for the host reads its channel for the answer (worker-entry.ts
// awaitReplies, channel.ts readSync); answers that take longer are waited for on its event loop.
// Either way every answer reaches the ctx call that asked, in order, with concurrent calls and new
// calls arriving while the worker reads.
describe("workers: ctx calls answered at once and late", () => {
  const chatty = `globalThis.__airlockPlugin = { tools: {
    chat: async (input, ctx) => {
      const got = [];
      for (let i = 0; i < input.n; i++) got.push(await ctx.state.get(input.tag + ":" + i));
      const slow = await ctx.knowledge.search(input.tag);
      return { got, slow };
    },
  } };`;

  it("hands each answer to its own call, whichever way it arrived", async () => {
    const sandbox = createWorkerSandbox({ workers: 1 });
    try {
      const plugin = makePlugin({ namespace: "chatty", code: chatty, tools: ["chat"] });
      await sandbox.load(plugin);
      let asked = 0;
      const bridge: BridgeDispatch = (_token, capability, _method, args) => {
        asked++;
        const key = String(args[0]);
        // state answers at once (read for); knowledge after 5 ms (waited for on the event loop)
        if (capability === "state") return Promise.resolve(`v(${key})`);
        return new Promise((resolve) => setTimeout(() => resolve(`late(${key})`), 5));
      };
      const call = (tag: string, n: number) =>
        sandbox.call(
          {
            pluginKey: plugin.key,
            tool: "chat",
            input: { tag, n },
            token: "t",
            context: {
              instanceId: `agent-${tag}`,
              conversationId: "c",
              toolId: "chatty:chat",
              conversation: [],
              attachments: [],
              knowledgeLevel: "read",
            },
            signal: AbortSignal.timeout(30_000),
          },
          bridge,
        );
      for (let round = 0; round < 3; round++) {
        const tags = ["a", "b", "c", "d"].map((t) => `${t}${round}`);
        const results = await Promise.all(tags.map((tag, i) => call(tag, 10 + i * 5)));
        results.forEach((result, i) => {
          const tag = tags[i]!;
          const n = 10 + i * 5;
          expect(result.structuredContent).toEqual({
            got: Array.from({ length: n }, (_, k) => `v(${tag}:${k})`),
            slow: `late(${tag})`,
          });
        });
      }
      expect(asked).toBe(3 * (10 + 15 + 20 + 25 + 4));
    } finally {
      await sandbox.close();
    }
  });
});

describe("workers: one call after another (each side reads for the other's answer)", () => {
  const tools = `globalThis.__airlockPlugin = { tools: {
    echo: async (input) => ({ text: input.text }),
    chat: async (input, ctx) => {
      const got = [];
      for (let i = 0; i < input.n; i++) got.push(await ctx.state.get(input.tag + ":" + i));
      return { got };
    },
    nap: async (input) => { await new Promise((r) => setTimeout(r, input.ms)); return { napped: input.ms }; },
    stall: async () => { await new Promise(() => {}); },
    clock: async () => ({ at: Date.now() }),
  } };`;

  const lone = (sandbox: WorkerSandbox, plugin: SandboxPlugin, tool: string, input: unknown, ms = 30_000) =>
    sandbox.call(
      {
        pluginKey: plugin.key,
        tool,
        input,
        token: "t",
        context: {
          instanceId: "solo",
          conversationId: "c",
          toolId: `lone:${tool}`,
          conversation: [],
          attachments: [],
          knowledgeLevel: null,
        },
        signal: AbortSignal.timeout(ms),
      },
      (_token, _capability, _method, args) => Promise.resolve(`v(${String(args[0])})`),
    );

  it("writes a lone call within its turn: the worker runs it while the caller's turn is still busy", async () => {
    const sandbox = createWorkerSandbox({ workers: 1, onLog: () => undefined });
    try {
      const plugin = makePlugin({ namespace: "lone", code: tools, tools: ["clock"] });
      await sandbox.load(plugin);
      await lone(sandbox, plugin, "clock", {});
      const answer = lone(sandbox, plugin, "clock", {});
      // let the call reach its worker slot without leaving this turn (microtasks only)
      for (let i = 0; i < 10_000 && sandbox.stats().busyCalls === 0; i++) await Promise.resolve();
      expect(sandbox.stats().busyCalls).toBe(1);
      // and the microtasks queued with it (a call resumed with others shares their write)
      for (let i = 0; i < 10; i++) await Promise.resolve();
      // hold this thread: a call written only at the turn's end would run after this
      const until = Date.now() + 500;
      while (Date.now() < until) {
        // busy
      }
      const resumed = Date.now();
      const { at } = (await answer).structuredContent as { at: number };
      expect(at).toBeLessThan(resumed);
    } finally {
      await sandbox.close();
    }
  });

  it("answers a long run of lone calls, quick and slow, each with its own result, and counts none left", async () => {
    const sandbox = createWorkerSandbox({ workers: 1, onLog: () => undefined });
    try {
      const plugin = makePlugin({ namespace: "lone", code: tools, tools: ["echo", "chat", "nap", "stall"] });
      await sandbox.load(plugin);
      // quick calls open both sides' gates; the naps (longer than any read) close them again
      for (let i = 0; i < 300; i++) {
        if (i % 50 === 49) {
          const napped = await lone(sandbox, plugin, "nap", { ms: 5 });
          expect(napped.structuredContent).toEqual({ napped: 5 });
        } else if (i % 3 === 0) {
          const chat = await lone(sandbox, plugin, "chat", { tag: `t${i}`, n: 3 });
          expect(chat.structuredContent).toEqual({ got: [0, 1, 2].map((k) => `v(t${i}:${k})`) });
        } else {
          const echo = await lone(sandbox, plugin, "echo", { text: `m${i}` });
          expect(echo.structuredContent).toEqual({ text: `m${i}` });
        }
        expect(sandbox.stats().busyCalls).toBe(0);
      }
      // a lone call ended by its deadline is no longer in flight, and the next lone call is served
      await expect(lone(sandbox, plugin, "stall", {}, 100)).rejects.toMatchObject({
        code: "AIRLOCK_SANDBOX_TIMEOUT",
      });
      expect(sandbox.stats().busyCalls).toBe(0);
      const after = await lone(sandbox, plugin, "echo", { text: "after" });
      expect(after.structuredContent).toEqual({ text: "after" });
      // two at once are not lone: both answered, in any order
      const both = await Promise.all([
        lone(sandbox, plugin, "chat", { tag: "x", n: 4 }),
        lone(sandbox, plugin, "echo", { text: "y" }),
      ]);
      expect(both.map((r) => r.structuredContent)).toEqual([
        { got: [0, 1, 2, 3].map((k) => `v(x:${k})`) },
        { text: "y" },
      ]);
      expect(sandbox.stats()).toMatchObject({ busyCalls: 0, restarts: 0 });
    } finally {
      await sandbox.close();
    }
  });
});

describe("workers: the early wake (wakeSpinMs)", () => {
  let sandbox: WorkerSandbox | undefined;
  afterEach(async () => {
    await sandbox?.close();
    sandbox = undefined;
  });

  it("is off by default: the sandbox offers no expect()", () => {
    sandbox = createWorkerSandbox({ workers: 1 });
    expect(sandbox.expect).toBeUndefined();
  });

  it("on: a woken worker serves the announced call, and calls after wakes it never received", async () => {
    sandbox = createWorkerSandbox({ workers: 1, wakeSpinMs: 0.5 });
    const plugin = makePlugin({ namespace: "woken", code, tools: ["spin"] });
    await sandbox.load(plugin);
    const open = gate();
    open.release();
    for (let i = 0; i < 20; i++) {
      // announced (a wake, at most one per 0.5 ms), then made; an unknown key is ignored
      sandbox.expect?.(plugin.key, "a", "c");
      sandbox.expect?.("nobody@1.0.0", "a", "c");
      const result = await spin(sandbox, plugin, "a", open.bridge);
      expect(result.isError).not.toBe(true);
    }
    // a wake with no call behind it leaves the worker serving the next call
    sandbox.expect?.(plugin.key, "a", "c");
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect((await spin(sandbox, plugin, "a", open.bridge)).isError).not.toBe(true);
  });
});
