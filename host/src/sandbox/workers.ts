// The worker-process Sandbox (the default): isolates live in child processes, one per core by
// default, each plugin version in exactly one of them (the one assigned fewest plugins when it
// was first loaded). A supervisor pings every worker; one that does not answer within pingTimeoutMs
// (a V8 out-of-memory can hang rather than crash) is killed, and a dead worker is restarted
// with its plugins reloaded. Calls in flight on it fail with AIRLOCK_SANDBOX_WORKER_CRASHED.
// Invariants: same contract and suite as the in-process mode; the token stays in this process.
import { availableParallelism } from "node:os";
import { decodeResult, encodeInput } from "./call-io.ts";
import { startDeadline } from "./deadline.ts";
import { sandboxError } from "./errors.ts";
import type { EffectiveLimits, Sandbox, SandboxStats } from "./types.ts";
import type { WorkerEngineOptions } from "./worker-protocol.ts";
import { WorkerSlot } from "./worker-slot.ts";

export interface WorkerSandboxOptions extends WorkerEngineOptions {
  /** Worker processes. Default: one per core. */
  workers?: number;
  /** How often the supervisor pings each worker. Default 1000 ms. */
  pingIntervalMs?: number;
  /** A worker that has not answered a ping for this long is killed and restarted. Default 5000 ms. */
  pingTimeoutMs?: number;
  /** A worker not ready this long after it was started is killed and restarted. Default 30000 ms. */
  startTimeoutMs?: number;
  /** Where worker processes' stdout/stderr lines and restarts are reported. Default: stderr. */
  onLog?: (line: string) => void;
}

export interface WorkerSandbox extends Sandbox {
  /** Process ids of the workers (for operators' tooling and the crash tests). */
  workerPids(): number[];
}

export function createWorkerSandbox(options: WorkerSandboxOptions = {}): WorkerSandbox {
  const { workers = availableParallelism(), pingIntervalMs = 1000, pingTimeoutMs = 5000 } = options;
  const startTimeoutMs = options.startTimeoutMs ?? 30_000;
  if (!Number.isSafeInteger(workers) || workers < 1) {
    throw sandboxError("AIRLOCK_SANDBOX_OPTIONS_INVALID", "workers must be a positive integer");
  }
  const onLog = options.onLog ?? ((line: string) => process.stderr.write(`${line}\n`));
  const engineOptions: WorkerEngineOptions = {};
  if (options.maxActiveCalls !== undefined) engineOptions.maxActiveCalls = options.maxActiveCalls;
  if (options.maxContextsPerIsolate !== undefined)
    engineOptions.maxContextsPerIsolate = options.maxContextsPerIsolate;
  if (options.watchIntervalMs !== undefined) engineOptions.watchIntervalMs = options.watchIntervalMs;
  const slots = Array.from({ length: workers }, (_, i) => new WorkerSlot(i, engineOptions, onLog));
  const placement = new Map<string, { slot: WorkerSlot; limits: EffectiveLimits }>();
  const assignment = new Map<string, WorkerSlot>();
  let closed = false;
  let pings = 0;

  const supervisor = setInterval(() => {
    for (const slot of slots) {
      if (!slot.started) {
        if (Date.now() - slot.startedAt > startTimeoutMs) {
          onLog(`[worker ${slot.index}] not ready after ${startTimeoutMs} ms; killing it`);
          slot.kill();
        }
      } else if (slot.pingSentAt !== null && Date.now() - slot.pingSentAt > pingTimeoutMs) {
        onLog(`[worker ${slot.index}] stopped answering for ${pingTimeoutMs} ms; killing it`);
        slot.pingSentAt = null;
        slot.kill();
      } else if (slot.pingSentAt === null) slot.ping(++pings);
    }
  }, pingIntervalMs);
  supervisor.unref();

  const open = () => {
    if (closed) throw sandboxError("AIRLOCK_SANDBOX_CLOSED", "the sandbox is closed");
  };

  return {
    mode: "workers",
    async load(plugin) {
      open();
      // choose (and reserve) a worker before awaiting, so concurrent loads spread out
      let slot = assignment.get(plugin.key);
      if (!slot) {
        const counts = new Map(slots.map((s) => [s, 0]));
        for (const s of assignment.values()) counts.set(s, (counts.get(s) ?? 0) + 1);
        slot = slots.reduce(
          (best, s) => ((counts.get(s) ?? 0) < (counts.get(best) ?? 0) ? s : best),
          slots[0]!,
        );
        assignment.set(plugin.key, slot);
      }
      try {
        await slot.load(plugin);
      } catch (error) {
        if (!placement.has(plugin.key)) assignment.delete(plugin.key);
        throw error;
      }
      placement.set(plugin.key, { slot, limits: plugin.limits });
    },
    async unload(pluginKey) {
      const placed = placement.get(pluginKey);
      placement.delete(pluginKey);
      assignment.delete(pluginKey);
      await placed?.slot.unload(pluginKey);
    },
    async call(call, bridge) {
      open();
      const placed = placement.get(call.pluginKey);
      if (!placed)
        throw sandboxError("AIRLOCK_SANDBOX_PLUGIN_NOT_LOADED", `no plugin is loaded as ${call.pluginKey}`);
      const inputJson = encodeInput(call.input, placed.limits.maxInputBytes);
      // wallMs is decided here, in the host (the worker only keeps a later backstop)
      const deadline = startDeadline(placed.limits.wallMs, call.signal);
      try {
        const json = await placed.slot.call(
          { pluginKey: call.pluginKey, tool: call.tool, inputJson, context: call.context },
          call.token,
          bridge,
          deadline.signal,
        );
        return decodeResult(json, placed.limits.maxResultBytes);
      } finally {
        deadline.clear();
      }
    },
    stats(): SandboxStats {
      return {
        mode: "workers",
        workers: slots.length,
        loadedPlugins: placement.size,
        busyCalls: slots.reduce((n, s) => n + s.busy, 0),
        restarts: slots.reduce((n, s) => n + s.restarts, 0),
      };
    },
    workerPids() {
      return slots.map((s) => s.pid).filter((pid): pid is number => pid !== undefined);
    },
    async close() {
      if (closed) return;
      closed = true;
      clearInterval(supervisor);
      await Promise.all(slots.map((s) => s.close()));
    },
  };
}
