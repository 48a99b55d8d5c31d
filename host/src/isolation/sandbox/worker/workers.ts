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
// Trust tiers (worker-tiers.ts): a plugin with `ownWorker` is placed in a worker of its own; a
// plugin whose isolate aborted a shared worker (V8 abort, attributed by worker-slot.ts) is taken
// out of it before the restart and moved into its own worker (`onQuarantine` tells the host),
// so its later crashes fail only its own calls.
import { availableParallelism } from "node:os";
import { decodeResult, encodeInput } from "../call-io.ts";
import { abortError, startDeadline } from "../deadline.ts";
import { sandboxError } from "../errors.ts";
import type { Sandbox, SandboxPlugin, SandboxStats } from "../types.ts";
import { PluginPlacement } from "./worker-placement.ts";
import type { WorkerEngineOptions } from "./worker-protocol.ts";
import { type WorkerAbort, WorkerSlot, type WorkerSlotHooks } from "./worker-slot.ts";
import { namespaceOf, type QuarantineNotice, WorkerTiers } from "./worker-tiers.ts";

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
  /** A plugin that aborted a shared worker was moved into a worker of its own. */
  onQuarantine?: (notice: QuarantineNotice) => void;
}

/** One worker holding a plugin version, as `pluginWorkers` reports it. */
export interface PluginWorkerInfo {
  /** The worker's index (stable across restarts) and current process id. */
  index: number;
  pid: number | undefined;
  /** A worker of the plugin's own (its tier, or a quarantine), not a shared one. */
  dedicated: boolean;
  /** Calls of the plugin in flight there, and calls of it sent there since it was loaded there. */
  inFlight: number;
  served: number;
}

export interface WorkerSandbox extends Sandbox {
  /** Process ids of the workers (for operators' tooling and the crash tests). */
  workerPids(): number[];
  /** The workers a plugin version is loaded in, and its calls waiting for its concurrency limit. */
  pluginWorkers(
    pluginKey: string,
  ): { workers: PluginWorkerInfo[]; queued: number; quarantined: boolean } | undefined;
}

/** `work`, or the deadline's reason when it aborts first (always an AIRLOCK_SANDBOX_TIMEOUT: startDeadline's own signal). */
function raceDeadline(work: Promise<void>, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<void>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
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
  if (options.replyWaitMs !== undefined) engineOptions.replyWaitMs = options.replyWaitMs;
  /** Calls in flight on all the workers (a slot reads it for a lone call: worker-slot.ts). */
  const inFlight = { calls: 0 };
  const makeSlot = (index: number, hooks: WorkerSlotHooks) =>
    new WorkerSlot(index, engineOptions, onLog, {
      ...hooks,
      inFlight,
      onAbort: (slot, abort) => quarantine(slot, abort),
    });
  const tiers = new WorkerTiers(workers, makeSlot);
  const slots = Array.from({ length: workers }, (_, i) => makeSlot(i, { markerPath: tiers.markerPath(i) }));
  const allSlots = () => [...slots, ...tiers.slots()];
  const placements = new Map<string, PluginPlacement>();
  /** The first worker chosen for a version whose first load is still running. */
  const reserved = new Map<string, WorkerSlot>();
  let closed = false;
  let pings = 0;

  const supervisor = setInterval(() => {
    for (const slot of allSlots()) {
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

  /** Moves a loaded version into its own worker (own) or back to a shared one; calls wait for it. */
  const move = (placed: PluginPlacement, plugin: SandboxPlugin, own: boolean): Promise<void> => {
    const namespace = namespaceOf(plugin.key);
    const target = own ? tiers.slotFor(namespace) : fewestPlugins();
    const moving = target.load(plugin).then(
      () => {
        const old = [...placed.holders.keys(), ...placed.loading].filter((s) => s !== target);
        placed.holders.clear();
        placed.holders.set(target, { inFlight: 0, served: 0 });
        placed.dedicated = own;
        placed.update(plugin);
        for (const slot of old)
          slot
            .unload(plugin.key)
            .then(() => (tiers.isOwn(slot) ? tiers.releaseIfEmpty(namespace) : undefined))
            .catch((error: { code?: string }) =>
              onLog(`[worker ${slot.index}] unloading ${plugin.key} after its move failed: ${error.code}`),
            );
      },
      (error: { code?: string }) => {
        onLog(`[worker ${target.index}] moving ${plugin.key} failed: ${error.code}`);
        throw error;
      },
    );
    const tracked: Promise<void> = moving.finally(() => {
      if (placed.moving === tracked) placed.moving = null;
    });
    tracked.catch(() => undefined); // the caller of move sees the failure
    placed.moving = tracked;
    return moving;
  };

  /** A shared worker was aborted by `abort.culprit`: its namespace leaves the shared workers. */
  const quarantine = (slot: WorkerSlot, abort: WorkerAbort): void => {
    if (abort.culprit === null) {
      onLog(`[worker ${slot.index}] aborted by ${abort.signal}; the plugin that caused it is unknown`);
      return;
    }
    if (tiers.isOwn(slot)) return; // already alone: only its own calls failed
    const namespace = namespaceOf(abort.culprit);
    tiers.quarantined.add(namespace);
    // taken out synchronously, so the restarted worker does not reload it
    for (const key of [...slot.plugins.keys()]) if (namespaceOf(key) === namespace) slot.plugins.delete(key);
    for (const [key, placed] of placements) {
      if (namespaceOf(key) !== namespace || placed.dedicated) continue;
      placed.holders.delete(slot);
      placed.loading.delete(slot);
      move(placed, placed.plugin, true).catch(() => undefined); // reported by move
    }
    onLog(
      `[worker ${slot.index}] aborted (${abort.signal}) running ${abort.culprit}; ${namespace} now runs in a worker of its own`,
    );
    options.onQuarantine?.({ pluginKey: abort.culprit, namespace, worker: slot.index, signal: abort.signal });
  };

  return {
    mode: "workers",
    async load(plugin) {
      open();
      const placed = placements.get(plugin.key);
      const own = tiers.wantsOwn(plugin);
      if (placed) {
        await placed.moving?.catch(() => undefined);
        if (placed.dedicated !== own) return move(placed, plugin, own); // the tier changed
        // a reload: every worker holding the version takes the new code and limits
        await Promise.all([...placed.holders.keys()].map((s) => s.load(plugin)));
        placed.update(plugin);
        return;
      }
      // choose (and reserve) a worker before awaiting, so concurrent loads spread out
      let slot = reserved.get(plugin.key);
      if (!slot) {
        slot = own ? tiers.slotFor(namespaceOf(plugin.key)) : fewestPlugins();
        reserved.set(plugin.key, slot);
      }
      try {
        await slot.load(plugin);
      } finally {
        if (reserved.get(plugin.key) === slot) reserved.delete(plugin.key);
      }
      const now = placements.get(plugin.key);
      if (!now) placements.set(plugin.key, new PluginPlacement(plugin, slot, own));
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
      await tiers.releaseIfEmpty(namespaceOf(pluginKey));
    },
    async call(call, bridge) {
      open();
      const placed = placements.get(call.pluginKey);
      if (!placed)
        throw sandboxError("AIRLOCK_SANDBOX_PLUGIN_NOT_LOADED", `no plugin is loaded as ${call.pluginKey}`);
      const { limits } = placed.plugin;
      const inputJson = encodeInput(call.input, limits.maxInputBytes);
      // wallMs is decided here, in the host (the worker only keeps a later backstop); a task
      // call brings its own
      const wallMs = call.wallMs ?? limits.wallMs;
      const deadline = startDeadline(wallMs, call.signal);
      const queue = placed.queue;
      try {
        if (deadline.signal.aborted || !queue.tryAcquire())
          await queue.acquire(deadline.signal).catch(() => {
            throw abortError(deadline.signal, wallMs);
          });
        try {
          if (placements.get(call.pluginKey) !== placed)
            throw sandboxError("AIRLOCK_SANDBOX_UNLOADED", "the plugin was unloaded before the call ran");
          // a plugin moving between tiers (a quarantine) has no worker until its new one is ready
          if (placed.holders.size === 0 && placed.moving) await raceDeadline(placed.moving, deadline.signal);
          if (placed.holders.size === 0)
            throw sandboxError(
              "AIRLOCK_SANDBOX_WORKER_CRASHED",
              "the worker hosting this plugin could not be started",
            );
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
                ...(call.wallMs === undefined ? {} : { wallMs: call.wallMs }),
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
        workers: slots.length + tiers.slots().length,
        loadedPlugins: placements.size,
        busyCalls: inFlight.calls,
        restarts: allSlots().reduce((n, s) => n + s.restarts, 0),
      };
    },
    workerPids() {
      return allSlots()
        .map((s) => s.pid)
        .filter((pid): pid is number => pid !== undefined);
    },
    pluginWorkers(pluginKey) {
      const placed = placements.get(pluginKey);
      if (!placed) return undefined;
      const infos = [...placed.holders].map(([s, h]) => ({
        index: s.index,
        pid: s.pid,
        dedicated: placed.dedicated,
        ...h,
      }));
      const quarantined = tiers.quarantined.has(namespaceOf(pluginKey));
      return { workers: infos.sort((a, b) => a.index - b.index), queued: placed.queue.waiting, quarantined };
    },
    async close() {
      if (closed) return;
      closed = true;
      clearInterval(supervisor);
      // the shared workers first: the tiers' close removes the entry-marker directory, which a
      // worker still starting would otherwise find gone
      await Promise.all(slots.map((s) => s.close()));
      await tiers.close();
    },
  };
}
