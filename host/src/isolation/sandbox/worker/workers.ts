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
// so its later crashes fail only its own calls. A plugin whose calls in the shared workers are
// ended by their CPU limit (`cpuShare`: the first such end by default) is moved into a worker of
// its own at a lower OS priority (`onCpuMove` tells the host): a CPU burner then holds no
// other plugin's call behind its synchronous entry, and gets the CPU only after the shared workers.
// This file checks the options and assembles the pieces, which share one WorkerFleet context:
// worker-fleet.ts (the workers, their supervisor, close), worker-loads.ts (load, unload, spread,
// quarantine), worker-calls.ts (call dispatch, the hot path), worker-stats.ts (reporting).
import { availableParallelism } from "node:os";
import { sandboxError } from "../errors.ts";
import type { Sandbox } from "../types.ts";
import { callWorker, expectCall } from "./worker-calls.ts";
import { closeFleet, createFleet, type FleetSettings, type WorkerDeathNotice } from "./worker-fleet.ts";
import { loadPlugin, quarantine, unloadPlugin } from "./worker-loads.ts";
import type { WorkerEngineOptions } from "./worker-protocol.ts";
import { fleetStats, type PluginWorkerInfo, pluginWorkers, workerPids } from "./worker-stats.ts";
import type { CpuMoveNotice, CpuShare, QuarantineNotice } from "./worker-tiers.ts";

export type { PluginWorkerInfo };

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
  /** A worker died while the sandbox was open (any cause), with the plugin it was running. */
  onWorkerDeath?: (notice: WorkerDeathNotice) => void;
  /**
   * The CPU-share rule: after `moveAfter` CPU-limit ends of a plugin's calls in the shared workers
   * within `windowMs`, it runs in a worker of its own at OS priority `priority` (niceness; null:
   * not lowered). Default `{moveAfter: 1, windowMs: 60000, priority: 10}`; moveAfter 0: never.
   */
  cpuShare?: Partial<CpuShare>;
  /** A plugin was moved into a worker of its own by the CPU-share rule. */
  onCpuMove?: (notice: CpuMoveNotice) => void;
}

export interface WorkerSandbox extends Sandbox {
  /** Process ids of the workers (for operators' tooling and the crash tests). */
  workerPids(): number[];
  /** The workers a plugin version is loaded in, and its calls waiting for its concurrency limit. */
  pluginWorkers(
    pluginKey: string,
  ): { workers: PluginWorkerInfo[]; queued: number; quarantined: boolean; cpuMoved: boolean } | undefined;
}

function positive(name: string, value: number): number {
  if (!Number.isSafeInteger(value) || value < 1)
    throw sandboxError("AIRLOCK_SANDBOX_OPTIONS_INVALID", `${name} must be a positive integer`);
  return value;
}

function nonNegative(name: string, value: number): number {
  if (!Number.isSafeInteger(value) || value < 0)
    throw sandboxError("AIRLOCK_SANDBOX_OPTIONS_INVALID", `${name} must be a non-negative integer`);
  return value;
}

/** The CPU-share rule checked and with its defaults. */
function resolveCpuShare(options: Partial<CpuShare> = {}): CpuShare {
  const priority = options.priority === undefined ? 10 : options.priority;
  if (priority !== null && (!Number.isSafeInteger(priority) || priority < -20 || priority > 19))
    throw sandboxError("AIRLOCK_SANDBOX_OPTIONS_INVALID", "cpuShare.priority must be an integer in -20..19");
  return {
    moveAfter: nonNegative("cpuShare.moveAfter", options.moveAfter ?? 1),
    windowMs: positive("cpuShare.windowMs", options.windowMs ?? 60_000),
    priority,
  };
}

/** The options checked (a bad count throws before any worker starts) and with their defaults. */
function resolveSettings(options: WorkerSandboxOptions): FleetSettings {
  const { pingIntervalMs = 1000, pingTimeoutMs = 5000 } = options;
  const workers = positive("workers", options.workers ?? availableParallelism());
  const maxWorkersPerPlugin = Math.min(
    workers,
    positive("maxWorkersPerPlugin", options.maxWorkersPerPlugin ?? workers),
  );
  const engineOptions: WorkerEngineOptions = {};
  if (options.maxActiveCalls !== undefined) engineOptions.maxActiveCalls = options.maxActiveCalls;
  if (options.maxContextsPerIsolate !== undefined)
    engineOptions.maxContextsPerIsolate = options.maxContextsPerIsolate;
  if (options.watchIntervalMs !== undefined) engineOptions.watchIntervalMs = options.watchIntervalMs;
  if (options.replyWaitMs !== undefined) engineOptions.replyWaitMs = options.replyWaitMs;
  if (options.wakeSpinMs !== undefined) engineOptions.wakeSpinMs = options.wakeSpinMs;
  return {
    workers,
    maxWorkersPerPlugin,
    engineOptions,
    pingIntervalMs,
    pingTimeoutMs,
    startTimeoutMs: options.startTimeoutMs ?? 30_000,
    onLog: options.onLog ?? ((line: string) => process.stderr.write(`${line}\n`)),
    onQuarantine: options.onQuarantine,
    onWorkerDeath: options.onWorkerDeath,
    cpuShare: resolveCpuShare(options.cpuShare),
    onCpuMove: options.onCpuMove,
  };
}

export function createWorkerSandbox(options: WorkerSandboxOptions = {}): WorkerSandbox {
  const fleet = createFleet(resolveSettings(options), (slot, abort) => quarantine(fleet, slot, abort));
  return {
    mode: "workers",
    load: (plugin) => loadPlugin(fleet, plugin),
    unload: (pluginKey) => unloadPlugin(fleet, pluginKey),
    call: (call, bridge) => callWorker(fleet, call, bridge),
    // the early wake is off unless asked for (wakeSpinMs; docs/sandbox.md)
    ...((options.wakeSpinMs ?? 0) > 0
      ? { expect: (pluginKey, agent, conversationId) => expectCall(fleet, pluginKey, agent, conversationId) }
      : {}),
    stats: () => fleetStats(fleet),
    workerPids: () => workerPids(fleet),
    pluginWorkers: (pluginKey) => pluginWorkers(fleet, pluginKey),
    close: () => closeFleet(fleet),
  };
}
