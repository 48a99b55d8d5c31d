// What the workers sandbox reports about itself: the Sandbox's stats (workers, loaded versions,
// calls in flight, restarts), the workers' process ids (operators' tooling, the crash tests), and
// where one plugin version is loaded (its workers, their load and OS priority, its queue, whether
// quarantined or moved for CPU).
// Invariants: read-only over the fleet (worker-fleet.ts): nothing here starts, stops or moves a
// worker or a plugin; counts include the tiers' own workers as well as the shared ones; a
// plugin's workers are listed by index, which is stable across restarts.
import type { SandboxStats } from "../types.ts";
import { allSlots, type WorkerFleet } from "./worker-fleet.ts";
import { namespaceOf } from "./worker-tiers.ts";

/** One worker holding a plugin version, as `pluginWorkers` reports it. */
export interface PluginWorkerInfo {
  /** The worker's index (stable across restarts) and current process id. */
  index: number;
  pid: number | undefined;
  /** A worker of the plugin's own (its tier, a quarantine or a CPU move), not a shared one. */
  dedicated: boolean;
  /** The OS priority (niceness) the worker was lowered to (a CPU move), or null: the host's. */
  priority: number | null;
  /** Calls of the plugin in flight there, and calls of it sent there since it was loaded there. */
  inFlight: number;
  served: number;
}

/** Where a plugin version is loaded, and its calls waiting for its concurrency limit. */
export interface PluginWorkers {
  workers: PluginWorkerInfo[];
  queued: number;
  quarantined: boolean;
  /** Moved into a worker of its own by the CPU-share rule. */
  cpuMoved: boolean;
}

export function fleetStats(fleet: WorkerFleet): SandboxStats {
  return {
    mode: "workers",
    workers: fleet.slots.length + fleet.tiers.slots().length,
    loadedPlugins: fleet.placements.size,
    busyCalls: fleet.inFlight.calls,
    restarts: allSlots(fleet).reduce((n, s) => n + s.restarts, 0),
  };
}

export function workerPids(fleet: WorkerFleet): number[] {
  return allSlots(fleet)
    .map((s) => s.pid)
    .filter((pid): pid is number => pid !== undefined);
}

export function pluginWorkers(fleet: WorkerFleet, pluginKey: string): PluginWorkers | undefined {
  const placed = fleet.placements.get(pluginKey);
  if (!placed) return undefined;
  const infos = [...placed.holders].map(([s, h]) => ({
    index: s.index,
    pid: s.pid,
    dedicated: placed.dedicated,
    priority: s.priority,
    inFlight: h.inFlight,
    served: h.served,
  }));
  const namespace = namespaceOf(pluginKey);
  return {
    workers: infos.sort((a, b) => a.index - b.index),
    queued: placed.queue.waiting,
    quarantined: fleet.tiers.quarantined.has(namespace),
    cpuMoved: fleet.tiers.cpuMoved.has(namespace),
  };
}
