// The worker-process Sandbox (the default): isolates live in child processes, one per core by
// default. A plugin version is first loaded in one worker (the one holding fewest plugins) and
// lazily into more (up to maxWorkersPerPlugin) when the workers holding it are all busy; each call
// goes to the least busy holder, preferring the one that last served its (agent, conversation)
// when that one is idle (worker-placement.ts). A supervisor pings every worker; one that does not
// answer within pingTimeoutMs (a V8 out-of-memory can hang rather than crash) is killed, and a
// dead worker is restarted with its plugins reloaded. Calls in flight on it fail with
// AIRLOCK_SANDBOX_WORKER_CRASHED; the other workers holding the plugin keep serving.
// Invariants: same contract and suite as the in-process mode; the token stays in this process;
// a plugin's `concurrency` bounds its calls across all workers together (counted here, where the
// wall-clock deadline also starts, so queue time counts); unload unloads from every worker.
import { availableParallelism } from "node:os";
import { decodeResult, encodeInput } from "./call-io.ts";
import { abortError, startDeadline } from "./deadline.ts";
import { sandboxError } from "./errors.ts";
import type { Sandbox, SandboxStats } from "./types.ts";
import { PluginPlacement } from "./worker-placement.ts";
import type { WorkerEngineOptions } from "./worker-protocol.ts";
import { WorkerSlot } from "./worker-slot.ts";

export interface WorkerSandboxOptions extends WorkerEngineOptions {
  /** Worker processes. Default: one per core. */
  workers?: number;
  /** Workers one plugin version may be loaded in at once. Default: all of them (`workers`). */
  maxWorkersPerPlugin?: number;
  /** How often the supervisor pings each worker. Default 1000 ms. */
  pingIntervalMs?: number;
  /** A worker that has not answered a ping for this long is killed and restarted. Default 5000 ms. */
  pingTimeoutMs?: number;
  /** A worker not ready this long after it was started is killed and restarted. Default 30000 ms. */
  startTimeoutMs?: number;
  /** Where worker processes' stdout/stderr lines and restarts are reported. Default: stderr. */
  onLog?: (line: string) => void;
}

/** One worker holding a plugin version, as `pluginWorkers` reports it. */
export interface PluginWorkerInfo {
  /** The worker's index (stable across restarts) and current process id. */
  index: number;
  pid: number | undefined;
  /** Calls of the plugin in flight there, and calls of it sent there since it was loaded there. */
  inFlight: number;
  served: number;
}

export interface WorkerSandbox extends Sandbox {
  /** Process ids of the workers (for operators' tooling and the crash tests). */
  workerPids(): number[];
  /** The workers a plugin version is loaded in, and its calls waiting for its concurrency limit. */
  pluginWorkers(pluginKey: string): { workers: PluginWorkerInfo[]; queued: number } | undefined;
}

function positive(name: string, value: number): number {
  if (!Number.isSafeInteger(value) || value < 1)
    throw sandboxError("AIRLOCK_SANDBOX_OPTIONS_INVALID", `${name} must be a positive integer`);
  return value;
}

export function createWorkerSandbox(options: WorkerSandboxOptions = {}): WorkerSandbox {
  const { pingIntervalMs = 1000, pingTimeoutMs = 5000 } = options;
  const workers = positive("workers", options.workers ?? availableParallelism());
  const maxWorkersPerPlugin = Math.min(
    workers,
    positive("maxWorkersPerPlugin", options.maxWorkersPerPlugin ?? workers),
  );
  const startTimeoutMs = options.startTimeoutMs ?? 30_000;
  const onLog = options.onLog ?? ((line: string) => process.stderr.write(`${line}\n`));
  const engineOptions: WorkerEngineOptions = {};
  if (options.maxActiveCalls !== undefined) engineOptions.maxActiveCalls = options.maxActiveCalls;
  if (options.maxContextsPerIsolate !== undefined)
    engineOptions.maxContextsPerIsolate = options.maxContextsPerIsolate;
  if (options.watchIntervalMs !== undefined) engineOptions.watchIntervalMs = options.watchIntervalMs;
  const slots = Array.from({ length: workers }, (_, i) => new WorkerSlot(i, engineOptions, onLog));
  const placements = new Map<string, PluginPlacement>();
  /** The first worker chosen for a version whose first load is still running. */
  const reserved = new Map<string, WorkerSlot>();
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

  /** The worker hosting (or about to host) the fewest plugin versions. */
  const fewestPlugins = (): WorkerSlot => {
    const counts = new Map(slots.map((s) => [s, 0]));
    for (const p of placements.values()) for (const s of p.holders.keys()) counts.set(s, counts.get(s)! + 1);
    for (const s of reserved.values()) counts.set(s, counts.get(s)! + 1);
    return slots.reduce((best, s) => (counts.get(s)! < counts.get(best)! ? s : best), slots[0]!);
  };

  /** Loads `placed` into one more worker in the background when all its holders are busy. */
  const spread = (placed: PluginPlacement) => {
    const slot = placed.spreadTarget(slots, maxWorkersPerPlugin);
    if (!slot) return;
    const plugin = placed.plugin;
    placed.loading.add(slot);
    slot.load(plugin).then(
      () => {
        placed.loading.delete(slot);
        if (placements.get(plugin.key) === placed && placed.plugin === plugin) {
          placed.holders.set(slot, { inFlight: 0, served: 0 });
          return;
        }
        // unloaded or replaced meanwhile: take this copy out unless the current one uses the slot
        if (placements.get(plugin.key)?.involves(slot)) return;
        slot.unload(plugin.key).catch((error: { code?: string }) => {
          onLog(`[worker ${slot.index}] unloading ${plugin.key} failed: ${error.code}`);
        });
      },
      (error: { code?: string }) => {
        placed.loading.delete(slot);
        onLog(`[worker ${slot.index}] loading ${plugin.key} in one more worker failed: ${error.code}`);
      },
    );
  };

  return {
    mode: "workers",
    async load(plugin) {
      open();
      const placed = placements.get(plugin.key);
      if (placed) {
        // a reload: every worker holding the version takes the new code and limits
        await Promise.all([...placed.holders.keys()].map((s) => s.load(plugin)));
        placed.update(plugin);
        return;
      }
      // choose (and reserve) a worker before awaiting, so concurrent loads spread out
      let slot = reserved.get(plugin.key);
      if (!slot) {
        slot = fewestPlugins();
        reserved.set(plugin.key, slot);
      }
      try {
        await slot.load(plugin);
      } finally {
        if (reserved.get(plugin.key) === slot) reserved.delete(plugin.key);
      }
      const now = placements.get(plugin.key);
      if (!now) placements.set(plugin.key, new PluginPlacement(plugin, slot));
      else {
        if (!now.involves(slot)) now.holders.set(slot, { inFlight: 0, served: 0 });
        now.update(plugin);
      }
    },
    async unload(pluginKey) {
      const placed = placements.get(pluginKey);
      placements.delete(pluginKey);
      if (!placed) return;
      const targets = [...placed.holders.keys(), ...placed.loading];
      await Promise.all(targets.map((s) => s.unload(pluginKey)));
    },
    async call(call, bridge) {
      open();
      const placed = placements.get(call.pluginKey);
      if (!placed)
        throw sandboxError("AIRLOCK_SANDBOX_PLUGIN_NOT_LOADED", `no plugin is loaded as ${call.pluginKey}`);
      const { limits } = placed.plugin;
      const inputJson = encodeInput(call.input, limits.maxInputBytes);
      // wallMs is decided here, in the host (the worker only keeps a later backstop)
      const deadline = startDeadline(limits.wallMs, call.signal);
      const queue = placed.queue;
      try {
        if (deadline.signal.aborted || !queue.tryAcquire())
          await queue.acquire(deadline.signal).catch(() => {
            throw abortError(deadline.signal, limits.wallMs);
          });
        try {
          if (placements.get(call.pluginKey) !== placed)
            throw sandboxError("AIRLOCK_SANDBOX_UNLOADED", "the plugin was unloaded before the call ran");
          const affinityKey = `${call.context.instanceId}\u0000${call.context.conversationId}`;
          const slot = placed.pick(affinityKey);
          const holder = placed.holders.get(slot)!;
          spread(placed);
          holder.inFlight++;
          holder.served++;
          placed.remember(affinityKey, slot);
          let json: string;
          try {
            json = await slot.call(
              {
                pluginKey: call.pluginKey,
                tool: call.tool,
                inputJson,
                agent: call.context.instanceId,
                contextJson: JSON.stringify(call.context),
              },
              call.token,
              bridge,
              deadline.signal,
            );
          } finally {
            holder.inFlight--;
          }
          return decodeResult(json, limits.maxResultBytes);
        } finally {
          queue.release();
        }
      } finally {
        deadline.clear();
      }
    },
    stats(): SandboxStats {
      return {
        mode: "workers",
        workers: slots.length,
        loadedPlugins: placements.size,
        busyCalls: slots.reduce((n, s) => n + s.busy, 0),
        restarts: slots.reduce((n, s) => n + s.restarts, 0),
      };
    },
    workerPids() {
      return slots.map((s) => s.pid).filter((pid): pid is number => pid !== undefined);
    },
    pluginWorkers(pluginKey) {
      const placed = placements.get(pluginKey);
      if (!placed) return undefined;
      const infos = [...placed.holders].map(([s, h]) => ({ index: s.index, pid: s.pid, ...h }));
      return { workers: infos.sort((a, b) => a.index - b.index), queued: placed.queue.waiting };
    },
    async close() {
      if (closed) return;
      closed = true;
      clearInterval(supervisor);
      await Promise.all(slots.map((s) => s.close()));
    },
  };
}
