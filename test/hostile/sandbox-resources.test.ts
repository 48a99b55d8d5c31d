// Hostile: resource exhaustion — infinite loops (sync, in microtasks, after an await), heap and
// ArrayBuffer memory bombs (one grown in small arrays, beside a bystander on its worker), a single
// huge allocation. Each earns its exact code, the plugin's
// isolate is replaced when it had to be, and the host serves the next call.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SandboxPlugin } from "../../host/src/isolation/sandbox/types.ts";
import type { WorkerDeathNotice } from "../../host/src/isolation/sandbox/worker/worker-fleet.ts";
import { fixtureBundle, makePlugin } from "../support/sandbox-fixtures.ts";
import type { Harness } from "../support/sandbox-harness.ts";
import { MODES } from "../support/sandbox-harness.ts";
import { expectContained, hostilePlugin, hostileSetup, waitFor } from "../support/sandbox-hostile.ts";

describe.each(MODES)("resource exhaustion (%s)", (mode) => {
  let h: Harness;
  let plugin: SandboxPlugin;
  // generous CPU so that on a loaded machine the memory limit, not the CPU limit, ends the bombs
  const roomy = hostilePlugin("hostile-mem", { cpuMs: 20_000, wallMs: 25_000 });
  // the default memoryMb: a heap this size gives V8 time to optimise the growing loop
  const grower = hostilePlugin("hostile-grow", { cpuMs: 20_000, wallMs: 25_000, memoryMb: 128 });
  beforeAll(async () => {
    ({ h, plugin } = await hostileSetup(mode));
    await h.sandbox.load(roomy);
    await h.sandbox.load(grower);
  });
  afterAll(async () => h.close());

  it.each([
    ["loopSync", "a synchronous infinite loop"],
    ["loopMicrotask", "an endless microtask chain"],
    ["loopAfterAwait", "an infinite loop after awaiting a capability call"],
  ])("stops %s (%s) with AIRLOCK_SANDBOX_CPU_LIMIT", async (tool) => {
    const error = await h.callError(plugin, tool);
    expect(error.code).toBe("AIRLOCK_SANDBOX_CPU_LIMIT");
    await expectContained(h, plugin);
  });

  it("fails a call that returns while leaving an endless microtask chain with AIRLOCK_SANDBOX_CPU_LIMIT", async () => {
    const error = await h.callError(plugin, "leaveMicrotaskLoop");
    expect(error.code).toBe("AIRLOCK_SANDBOX_CPU_LIMIT");
    await expectContained(h, plugin);
  });

  it.each([
    ["leaveSpinLoop", "code left running after its call ended"],
    ["leaveBridgeLoop", "keeps calling ctx after its call ended"],
  ])("resets the isolate when %s keeps working after its call returned", async (tool, warning) => {
    const agent = `${tool}-agent`;
    expect((await h.call(plugin, tool, {}, { agent })).content).toEqual([{ type: "text", text: "returned" }]);
    await waitFor(() => h.logs.some((l) => l.includes(warning)));
    await expectContained(h, plugin, agent);
  });

  it("disposes an isolate whose heap passes memoryMb with AIRLOCK_SANDBOX_MEMORY_LIMIT", async () => {
    const error = await h.callError(roomy, "heapBomb");
    expect(error.code).toBe("AIRLOCK_SANDBOX_MEMORY_LIMIT");
    await expectContained(h, roomy);
  });

  it("ends a heap grown in small arrays with AIRLOCK_SANDBOX_MEMORY_LIMIT", async () => {
    const error = await h.callError(grower, "heapGrowSmall");
    expect(error.code).toBe("AIRLOCK_SANDBOX_MEMORY_LIMIT");
    await expectContained(h, grower);
  });

  it("counts ArrayBuffer memory against memoryMb (AIRLOCK_SANDBOX_MEMORY_LIMIT)", async () => {
    const error = await h.callError(roomy, "bufferBomb");
    expect(error.code).toBe("AIRLOCK_SANDBOX_MEMORY_LIMIT");
    await expectContained(h, roomy);
  });

  it("refuses one ArrayBuffer larger than memoryMb (AIRLOCK_SANDBOX_MEMORY_LIMIT)", async () => {
    const error = await h.callError(roomy, "hugeBuffer");
    expect(error.code).toBe("AIRLOCK_SANDBOX_MEMORY_LIMIT");
    await expectContained(h, roomy);
  });
});

describe("a heap grown to memoryMb beside a bystander on the same worker (workers)", () => {
  let h: Harness;
  const deaths: WorkerDeathNotice[] = [];
  const grower = hostilePlugin("hostile-grow", { cpuMs: 20_000, wallMs: 25_000, memoryMb: 128 });
  const bystander = makePlugin({
    namespace: "bystander",
    code: fixtureBundle("basic"),
    tools: ["echo", "gated"],
  });
  beforeAll(async () => {
    // one worker: the grown heap and the bystander's call share its one thread
    ({ h } = await hostileSetup("workers", {}, { workers: 1, onWorkerDeath: (d) => deaths.push(d) }));
    await h.sandbox.load(grower);
    await h.sandbox.load(bystander);
  });
  afterAll(async () => h.close());

  it("ends the call with AIRLOCK_SANDBOX_MEMORY_LIMIT; the worker lives and the bystander's call succeeds", async () => {
    const hits = h.gate.hits;
    const waiting = h.call(bystander, "gated");
    await h.gate.reached(hits + 1);
    const error = await h.callError(grower, "heapGrowSmall");
    expect(error.code).toBe("AIRLOCK_SANDBOX_MEMORY_LIMIT");
    h.gate.release();
    expect((await waiting).content).toEqual([{ type: "text", text: "through" }]);
    expect(deaths).toEqual([]);
    expect(h.sandbox.stats().restarts).toBe(0);
    await expectContained(h, grower);
  });
});
