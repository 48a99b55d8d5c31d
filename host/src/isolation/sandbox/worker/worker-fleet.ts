// The worker processes of one workers-mode sandbox as a set, and the state its pieces share:
// the shared workers (each started on its first load or call: worker-slot.ts), the trust tiers' own workers (worker-tiers.ts), where
// each plugin version is placed (worker-placement.ts), the supervisor that pings them, and close.
// `WorkerFleet` is the one small context object that worker-loads.ts (placement), worker-calls.ts
// (call dispatch) and worker-stats.ts (reporting) are handed; they keep no state of their own.
// Supervision: a worker not ready within startTimeoutMs, or that has not answered a ping for
// pingTimeoutMs (a V8 out-of-memory can hang rather than crash), is killed; worker-slot.ts
// restarts it with its plugins reloaded. A worker killed for not answering is reported to
// `onAbort` with the plugin it was running (cause `unresponsive`), which is quarantined like the
// plugin of a V8 abort: a worker answers its pings ahead of any plugin traffic (worker-entry.ts),
// so one that does not is held by the plugin code it runs.
// Invariants: `closed` is set once, by closeFleet, before anything awaits, and every entry point
// that starts work checks it (assertOpen); the shared workers close before the tiers, whose close
// removes the entry-marker directory a worker still starting would otherwise find gone; a slot's
// abort is reported synchronously to `onAbort` (before its restart), for the quarantine; every
// death of a worker while the fleet is open is told to `onWorkerDeath` (the host audits it).
import { sandboxError } from "../errors.ts";
import type { PluginPlacement } from "./worker-placement.ts";
import type { WorkerEngineOptions } from "./worker-protocol.ts";
import {
  type CallCount,
  type WorkerAbort,
  type WorkerDeathCause,
  WorkerSlot,
  type WorkerSlotHooks,
} from "./worker-slot.ts";
import {
  type CpuMoveNotice,
  type CpuShare,
  namespaceOf,
  type QuarantineNotice,
  WorkerTiers,
} from "./worker-tiers.ts";

/** A worker that died while the sandbox was open: which, why, and the plugin it was running. */
export interface WorkerDeathNotice {
  worker: number;
  cause: WorkerDeathCause;
  signal: string | null;
  exitCode: number | null;
  /** The version it was running, or null when that cannot be told (then `running` lists all). */
  pluginKey: string | null;
  namespace: string | null;
  /** Every version with a call or a load in flight on it. */
  running: string[];
}

/** The sandbox's options, checked and with their defaults (workers.ts resolves them). */
export interface FleetSettings {
  workers: number;
  maxWorkersPerPlugin: number;
  engineOptions: WorkerEngineOptions;
  pingIntervalMs: number;
  pingTimeoutMs: number;
  startTimeoutMs: number;
  onLog: (line: string) => void;
  onQuarantine: ((notice: QuarantineNotice) => void) | undefined;
  onWorkerDeath: ((notice: WorkerDeathNotice) => void) | undefined;
  cpuShare: CpuShare;
  onCpuMove: ((notice: CpuMoveNotice) => void) | undefined;
}

export interface WorkerFleet {
  /** The shared workers (indices 0..workers-1). */
  readonly slots: readonly WorkerSlot[];
  /** The workers of a plugin's own (an operator's tier or a quarantine). */
  readonly tiers: WorkerTiers;
  /** Every loaded plugin version by key, and the workers holding it. */
  readonly placements: Map<string, PluginPlacement>;
  /** The first worker chosen for a version whose first load is still running. */
  readonly reserved: Map<string, WorkerSlot>;
  /** Calls in flight on all the workers (a slot reads it for a lone call: worker-slot.ts). */
  readonly inFlight: CallCount;
  readonly maxWorkersPerPlugin: number;
  readonly onLog: (line: string) => void;
  readonly onQuarantine: ((notice: QuarantineNotice) => void) | undefined;
  /** The CPU-share rule, and when each namespace's calls in shared workers were ended by cpuMs. */
  readonly cpuShare: CpuShare;
  readonly cpuLimitEnds: Map<string, number[]>;
  readonly onCpuMove: ((notice: CpuMoveNotice) => void) | undefined;
  readonly supervisor: NodeJS.Timeout;
  closed: boolean;
}

/** Creates the shared workers (each starts on first use) and starts their supervisor; `onAbort` hears a worker V8 aborted. */
export function createFleet(
  settings: FleetSettings,
  onAbort: (slot: WorkerSlot, abort: WorkerAbort) => void,
): WorkerFleet {
  const { engineOptions, onLog } = settings;
  const inFlight: CallCount = { calls: 0 };
  const tell = settings.onWorkerDeath;
  const onDeath: WorkerSlotHooks["onDeath"] =
    tell === undefined
      ? undefined
      : (slot, death) => {
          const { culprit: pluginKey, ...rest } = death;
          const namespace = pluginKey === null ? null : namespaceOf(pluginKey);
          try {
            tell({ worker: slot.index, ...rest, pluginKey, namespace });
          } catch (error) {
            onLog(`[worker ${slot.index}] death listener failed: ${String(error)}`);
          }
        };
  const makeSlot = (index: number, hooks: WorkerSlotHooks) =>
    new WorkerSlot(index, engineOptions, onLog, {
      ...hooks,
      inFlight,
      onAbort,
      ...(onDeath === undefined ? {} : { onDeath }),
    });
  const tiers = new WorkerTiers(settings.workers, makeSlot, settings.cpuShare.priority);
  const slots = Array.from({ length: settings.workers }, (_, i) =>
    makeSlot(i, { markerPath: tiers.markerPath(i) }),
  );
  const fleet: WorkerFleet = {
    slots,
    tiers,
    placements: new Map(),
    reserved: new Map(),
    inFlight,
    maxWorkersPerPlugin: settings.maxWorkersPerPlugin,
    onLog,
    onQuarantine: settings.onQuarantine,
    cpuShare: settings.cpuShare,
    cpuLimitEnds: new Map(),
    onCpuMove: settings.onCpuMove,
    supervisor: startSupervisor(() => allSlots(fleet), settings),
    closed: false,
  };
  return fleet;
}

/** Every worker, shared ones first. */
export function allSlots(fleet: WorkerFleet): WorkerSlot[] {
  return [...fleet.slots, ...fleet.tiers.slots()];
}

export function assertOpen(fleet: WorkerFleet): void {
  if (fleet.closed) throw sandboxError("AIRLOCK_SANDBOX_CLOSED", "the sandbox is closed");
}

/** Kills a worker that did not start in time or stopped answering pings; pings the others. */
function startSupervisor(slots: () => WorkerSlot[], settings: FleetSettings): NodeJS.Timeout {
  const { startTimeoutMs, pingTimeoutMs, onLog } = settings;
  let pings = 0;
  const supervisor = setInterval(() => {
    for (const slot of slots()) {
      if (!slot.spawned) continue; // not started yet: nothing to supervise
      if (!slot.started) {
        if (Date.now() - slot.startedAt > startTimeoutMs) {
          onLog(`[worker ${slot.index}] not ready after ${startTimeoutMs} ms; killing it`);
          slot.kill();
        }
      } else if (slot.pingSentAt !== null && Date.now() - slot.pingSentAt > pingTimeoutMs) {
        onLog(`[worker ${slot.index}] stopped answering for ${pingTimeoutMs} ms; killing it`);
        slot.pingSentAt = null;
        slot.kill(true); // the plugin it was running is named and quarantined (worker-slot.ts)
      } else if (slot.pingSentAt === null) slot.ping(++pings);
    }
  }, settings.pingIntervalMs);
  supervisor.unref();
  return supervisor;
}

/** Stops the supervisor and every worker; a second close does nothing. */
export async function closeFleet(fleet: WorkerFleet): Promise<void> {
  if (fleet.closed) return;
  fleet.closed = true;
  clearInterval(fleet.supervisor);
  // the shared workers first: the tiers' close removes the entry-marker directory, which a
  // worker still starting would otherwise find gone
  await Promise.all(fleet.slots.map((s) => s.close()));
  await fleet.tiers.close();
}
