// Hostile: a plugin that burns CPU until its limit ends the call, sharing the only shared worker
// with a bystander. A worker enters plugin code synchronously, so every burn there would hold the
// bystander's calls for up to `cpuMs`. After the burner's first CPU-limit end (the default
// CPU-share rule) it is moved into a worker of its own at a lower OS priority and the operator
// is told; from then on its burns run there, and the bystander keeps the shared worker (asserted
// by placement and the processes' priorities, never by timing); a call of the burner running in
// the shared worker when it moves finishes there. A plugin already alone is
// neither counted nor lowered; `moveAfter: 0` turns the rule off.
import { getPriority } from "node:os";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SandboxPlugin } from "../../host/src/isolation/sandbox/types.ts";
import type { CpuMoveNotice } from "../../host/src/isolation/sandbox/worker/worker-tiers.ts";
import type { WorkerSandbox } from "../../host/src/isolation/sandbox/worker/workers.ts";
import { fixtureBundle, makePlugin } from "../support/sandbox-fixtures.ts";
import { createHarness, type Harness } from "../support/sandbox-harness.ts";
import { CANARY, expectContained, hostilePlugin } from "../support/sandbox-hostile.ts";

const bystanderOf = (namespace: string, ownWorker?: boolean): SandboxPlugin =>
  makePlugin({
    namespace,
    code: fixtureBundle("basic"),
    tools: ["echo", "gated"],
    ...(ownWorker === undefined ? {} : { ownWorker }),
  });

describe("the CPU share of a plugin that burns CPU (workers)", { timeout: 60_000 }, () => {
  let h: Harness;
  let sandbox: WorkerSandbox;
  const notices: CpuMoveNotice[] = [];
  const burner = hostilePlugin("burner", { cpuMs: 100 });
  const bystander = bystanderOf("bystander");
  const loner = { ...hostilePlugin("loner", { cpuMs: 100 }), ownWorker: true };

  beforeAll(async () => {
    h = await createHarness("workers", { workers: 1, onCpuMove: (n) => notices.push(n) });
    sandbox = h.sandbox as WorkerSandbox;
    await h.sandbox.load(burner);
    await h.sandbox.load(bystander);
    await h.sandbox.load(loner);
    await h.setSecret("agent-a", "canary_key", CANARY);
  });
  afterAll(async () => h.close());

  const holder = (plugin: SandboxPlugin) => sandbox.pluginWorkers(plugin.key)!.workers[0]!;

  it("shares the one shared worker at the host's priority before any burn", () => {
    expect(holder(burner)).toMatchObject({ index: 0, dedicated: false, priority: null });
    expect(holder(bystander)).toMatchObject({ index: 0, dedicated: false, priority: null });
    expect(sandbox.pluginWorkers(burner.key)!.cpuMoved).toBe(false);
  });

  it("moves the burner into a low-priority worker of its own after its first CPU-limit end", async () => {
    // a call of the burner still running in the shared worker when it moves finishes there
    const hits = h.gate.hits;
    const inFlight = h.call(burner, "gated");
    await h.gate.reached(hits + 1);
    const error = await h.callError(burner, "loopSync");
    expect(error.code).toBe("AIRLOCK_SANDBOX_CPU_LIMIT");
    expect(notices).toEqual([
      {
        pluginKey: burner.key,
        namespace: "burner",
        worker: 0,
        cpuLimitEnds: 1,
        windowMs: 60_000,
        priority: 10,
      },
    ]);
    expect(h.logs.some((l) => l.includes("burner now runs in a worker of its own at priority 10"))).toBe(
      true,
    );
    await expectContained(h, burner); // its new calls wait for the move: served from its own worker
    // the gated call, still running in the shared worker when the move completed, finishes there
    h.gate.release();
    expect((await inFlight).content).toEqual([{ type: "text", text: "through" }]);
    expect(sandbox.pluginWorkers(burner.key)!.cpuMoved).toBe(true);
    const own = holder(burner);
    const shared = holder(bystander);
    expect(own).toMatchObject({ dedicated: true, priority: 10 });
    expect(own.index).not.toBe(0);
    expect(shared).toMatchObject({ index: 0, dedicated: false, priority: null });
    expect(own.pid).not.toBe(shared.pid);
    // the operating system's own view of the two processes
    expect(getPriority(own.pid!)).toBe(10);
    expect(getPriority(shared.pid!)).toBe(getPriority());
  });

  it("runs the burner's later burns away from the bystander's calls, which keep the shared worker", async () => {
    const sharedPid = holder(bystander).pid;
    const hits = h.gate.hits;
    const inFlight = h.call(bystander, "gated");
    await h.gate.reached(hits + 1);
    for (const tool of ["loopSync", "loopAfterAwait"]) {
      expect((await h.callError(burner, tool)).code).toBe("AIRLOCK_SANDBOX_CPU_LIMIT");
    }
    h.gate.release();
    expect((await inFlight).content).toEqual([{ type: "text", text: "through" }]);
    expect(notices).toHaveLength(1); // already alone: not counted again
    expect(holder(bystander)).toMatchObject({ index: 0, pid: sharedPid, served: 1 });
    expect(holder(burner).pid).not.toBe(sharedPid);
    expect((await h.call(bystander, "echo", { after: 1 })).structuredContent).toEqual({
      echoed: { after: 1 },
    });
    await expectContained(h, burner);
  });

  it("neither counts nor lowers a plugin that already has a worker of its own", async () => {
    expect((await h.callError(loner, "loopSync")).code).toBe("AIRLOCK_SANDBOX_CPU_LIMIT");
    expect(notices).toHaveLength(1);
    expect(holder(loner)).toMatchObject({ dedicated: true, priority: null });
    expect(getPriority(holder(loner).pid!)).toBe(getPriority());
    await expectContained(h, loner);
  });

  it("takes the burner back into the shared worker when the operator says so", async () => {
    await h.sandbox.load({ ...burner, ownWorker: false });
    expect(sandbox.pluginWorkers(burner.key)).toMatchObject({ cpuMoved: false });
    expect(holder(burner)).toMatchObject({ index: 0, dedicated: false, priority: null });
    await expectContained(h, burner);
  });
});

describe("the CPU-share rule turned off (workers)", { timeout: 60_000 }, () => {
  let h: Harness;
  const notices: CpuMoveNotice[] = [];
  const burner = hostilePlugin("burner", { cpuMs: 100 });

  beforeAll(async () => {
    h = await createHarness("workers", {
      workers: 1,
      cpuShare: { moveAfter: 0 },
      onCpuMove: (n) => notices.push(n),
    });
    await h.sandbox.load(burner);
  });
  afterAll(async () => h.close());

  it("leaves a burner in the shared worker with moveAfter 0", async () => {
    expect((await h.callError(burner, "loopSync")).code).toBe("AIRLOCK_SANDBOX_CPU_LIMIT");
    expect(notices).toEqual([]);
    expect((h.sandbox as WorkerSandbox).pluginWorkers(burner.key)!.workers).toEqual([
      expect.objectContaining({ index: 0, dedicated: false, priority: null }),
    ]);
    await expectContained(h, burner);
  });

  it("refuses a rule out of range with a code", async () => {
    const { createSandbox } = await import("../../host/src/isolation/sandbox/index.ts");
    for (const cpuShare of [{ moveAfter: -1 }, { windowMs: 0 }, { priority: 20 }, { priority: 1.5 }]) {
      expect(() => createSandbox({ mode: "workers", cpuShare })).toThrow(
        expect.objectContaining({ code: "AIRLOCK_SANDBOX_OPTIONS_INVALID" }),
      );
    }
  });
});
