// Hostile: taking down the worker process. Plugin code cannot reach process at all; a worker
// that dies (killed here from outside, as a V8 crash would) fails only its own in-flight calls
// with AIRLOCK_SANDBOX_WORKER_CRASHED while another worker's calls complete, and it is restarted
// with its plugins; a worker that stops answering pings is killed by the supervisor. Every death
// is told to the sandbox's owner (the host audits it) with the plugin that was running and the
// cause: killed from outside, killed by the supervisor.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SandboxPlugin } from "../../host/src/isolation/sandbox/types.ts";
import type { WorkerDeathNotice } from "../../host/src/isolation/sandbox/worker/worker-fleet.ts";
import type { WorkerSandbox } from "../../host/src/isolation/sandbox/worker/workers.ts";
import { fixtureBundle, makePlugin } from "../support/sandbox-fixtures.ts";
import type { Harness } from "../support/sandbox-harness.ts";
import { expectContained, hostileSetup } from "../support/sandbox-hostile.ts";

describe("worker process attacks (workers)", () => {
  let h: Harness;
  let plugin: SandboxPlugin;
  const deaths: WorkerDeathNotice[] = [];
  const other = makePlugin({
    namespace: "bystander",
    code: fixtureBundle("basic"),
    tools: ["echo", "gated"],
  });

  beforeAll(async () => {
    ({ h, plugin } = await hostileSetup(
      "workers",
      {},
      { pingTimeoutMs: 3000, onWorkerDeath: (d) => deaths.push(d) },
    ));
    await h.sandbox.load(other); // the second worker hosts the bystander
  });
  afterAll(async () => h.close());

  const pidOf = (index: number) => (h.sandbox as WorkerSandbox).workerPids()[index]!;

  it("finds no process, process.kill or require to end its worker from inside", async () => {
    const result = await h.call(plugin, "exitWorker");
    expect(result.structuredContent).toBeUndefined();
    expect(result.content).toEqual([
      { type: "text", text: '["ReferenceError","ReferenceError","ReferenceError"]' },
    ]);
    expect(h.sandbox.stats().restarts).toBe(0);
    await expectContained(h, plugin);
  });

  it("fails the calls of a killed worker with AIRLOCK_SANDBOX_WORKER_CRASHED, not the other worker's", async () => {
    const hits = h.gate.hits;
    const victim = h.callError(plugin, "gated");
    const bystander = h.call(other, "gated");
    await h.gate.reached(hits + 2);
    process.kill(pidOf(0), "SIGKILL");
    expect((await victim).code).toBe("AIRLOCK_SANDBOX_WORKER_CRASHED");
    h.gate.release();
    expect((await bystander).content).toEqual([{ type: "text", text: "through" }]);
    expect(h.sandbox.stats().restarts).toBe(1);
    expect(deaths).toEqual([
      {
        worker: 0,
        cause: "killed",
        signal: "SIGKILL",
        exitCode: null,
        pluginKey: plugin.key,
        namespace: plugin.manifest.namespace,
        running: [plugin.key],
      },
    ]);
    await expectContained(h, plugin);
  });

  it("kills and restarts a worker that stops answering pings", async () => {
    const hits = h.gate.hits;
    const victim = h.callError(plugin, "gated");
    await h.gate.reached(hits + 1);
    const before = h.sandbox.stats().restarts;
    process.kill(pidOf(0), "SIGSTOP");
    expect((await victim).code).toBe("AIRLOCK_SANDBOX_WORKER_CRASHED");
    expect(h.sandbox.stats().restarts).toBe(before + 1);
    expect(h.logs.some((l) => l.includes("stopped answering"))).toBe(true);
    expect(deaths.at(-1)).toEqual({
      worker: 0,
      cause: "killed_by_supervisor",
      signal: "SIGKILL",
      exitCode: null,
      pluginKey: plugin.key,
      namespace: plugin.manifest.namespace,
      running: [plugin.key],
    });
    h.gate.release();
    await expectContained(h, plugin);
  });
});
