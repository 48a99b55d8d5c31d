// Hostile: a plugin whose isolate makes V8 abort its worker process (an allocation pattern the
// isolate's memoryLimit does not catch: SIGABRT, the whole process gone). Two plugins share the
// only shared worker; the first abort fails what was in flight there (nothing can save it), the
// aborting plugin is moved into a worker of its own before the restart and the operator is told;
// from then on the bystander's calls — later ones and ones in flight while the attacker aborts
// again — succeed, and its worker is never restarted again. The operator's own tier
// (`ownWorker`) places a plugin alone from the start and can be taken back.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SandboxPlugin } from "../../host/src/isolation/sandbox/types.ts";
import type { QuarantineNotice } from "../../host/src/isolation/sandbox/worker/worker-tiers.ts";
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

// each abort can take seconds of GC thrashing on a loaded machine
describe("quarantine of a plugin that aborts its worker (workers)", { timeout: 120_000 }, () => {
  let h: Harness;
  let sandbox: WorkerSandbox;
  const notices: QuarantineNotice[] = [];
  // generous CPU so that on a loaded machine the abort, not the CPU limit, ends the call
  const attacker = hostilePlugin("attacker", { cpuMs: 20_000, wallMs: 25_000 });
  const bystander = bystanderOf("bystander");

  beforeAll(async () => {
    // a loaded machine can take seconds to reach the abort (GC thrashing near the heap limit):
    // the supervisor must not kill the worker first (a SIGKILL is never attributed)
    h = await createHarness("workers", {
      workers: 1,
      pingTimeoutMs: 120_000,
      onQuarantine: (n) => notices.push(n),
    });
    sandbox = h.sandbox as WorkerSandbox;
    await h.sandbox.load(attacker);
    await h.sandbox.load(bystander);
    await h.setSecret("agent-a", "canary_key", CANARY);
  });
  afterAll(async () => h.close());

  const holder = (plugin: SandboxPlugin) => sandbox.pluginWorkers(plugin.key)!.workers[0]!;

  it("shares the one shared worker between both plugins before any abort", () => {
    expect(holder(attacker).index).toBe(0);
    expect(holder(bystander).index).toBe(0);
    expect(holder(attacker).dedicated).toBe(false);
    expect(sandbox.pluginWorkers(attacker.key)!.quarantined).toBe(false);
  });

  it("moves the aborting plugin into a worker of its own and tells the operator", async () => {
    const hits = h.gate.hits;
    const inFlight = h.callError(bystander, "gated");
    await h.gate.reached(hits + 1);
    const error = await h.callError(attacker, "abortEngine");
    expect(error.code).toBe("AIRLOCK_SANDBOX_WORKER_CRASHED");
    // the first abort takes the shared worker down with what was in flight on it
    expect((await inFlight).code).toBe("AIRLOCK_SANDBOX_WORKER_CRASHED");
    h.gate.release();
    expect(notices).toEqual([
      { pluginKey: attacker.key, namespace: "attacker", worker: 0, signal: "SIGABRT" },
    ]);
    expect(h.logs.some((l) => l.includes("attacker now runs in a worker of its own"))).toBe(true);
    expect((await h.call(bystander, "echo", { after: 1 })).structuredContent).toEqual({
      echoed: { after: 1 },
    });
    await expectContained(h, attacker); // served again, from its own worker
    expect(holder(attacker)).toMatchObject({ index: 1, dedicated: true });
    expect(sandbox.pluginWorkers(attacker.key)!.quarantined).toBe(true);
    expect(holder(bystander)).toMatchObject({ index: 0, dedicated: false });
    expect(holder(attacker).pid).not.toBe(holder(bystander).pid);
  });

  it("no longer fails the bystander's in-flight calls when the attacker aborts again", async () => {
    const bystanderPid = holder(bystander).pid;
    const restarts = h.sandbox.stats().restarts;
    const hits = h.gate.hits;
    const inFlight = h.call(bystander, "gated");
    await h.gate.reached(hits + 1);
    for (let round = 0; round < 2; round++) {
      const error = await h.callError(attacker, "abortEngine");
      expect(error.code).toBe("AIRLOCK_SANDBOX_WORKER_CRASHED");
    }
    h.gate.release();
    expect((await inFlight).content).toEqual([{ type: "text", text: "through" }]);
    expect(holder(bystander).pid).toBe(bystanderPid);
    expect(h.sandbox.stats().restarts).toBe(restarts + 2); // the attacker's own worker, twice
    expect(notices).toHaveLength(1); // already alone: nothing more to move
    expect((await h.call(bystander, "echo", { after: 2 })).structuredContent).toEqual({
      echoed: { after: 2 },
    });
    await expectContained(h, attacker);
  });
});

describe("the operator's own-worker tier (workers)", () => {
  let h: Harness;
  let sandbox: WorkerSandbox;
  const shared = bystanderOf("neighbour");

  beforeAll(async () => {
    h = await createHarness("workers", { workers: 1 });
    sandbox = h.sandbox as WorkerSandbox;
    await h.sandbox.load(shared);
  });
  afterAll(async () => h.close());

  it("places an ownWorker plugin alone, and back in the shared worker when the tier is taken back", async () => {
    const alone = bystanderOf("loner", true);
    await h.sandbox.load(alone);
    const own = sandbox.pluginWorkers(alone.key)!.workers;
    expect(own).toEqual([expect.objectContaining({ index: 1, dedicated: true })]);
    expect(own[0]!.pid).not.toBe(sandbox.pluginWorkers(shared.key)!.workers[0]!.pid);
    expect((await h.call(alone, "echo", { a: 1 })).structuredContent).toEqual({ echoed: { a: 1 } });
    expect(sandbox.workerPids()).toHaveLength(2);

    await h.sandbox.load(bystanderOf("loner", false));
    expect(sandbox.pluginWorkers(alone.key)!.workers).toEqual([
      expect.objectContaining({ index: 0, dedicated: false }),
    ]);
    expect((await h.call(alone, "echo", { a: 2 })).structuredContent).toEqual({ echoed: { a: 2 } });
    await expect.poll(() => sandbox.workerPids().length).toBe(1); // its own worker was closed
  });
});
