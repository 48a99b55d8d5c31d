// Where one plugin version is loaded in workers mode, and which of those workers serves a call.
// A version starts in one worker and is loaded lazily into another (up to maxWorkersPerPlugin)
// when every worker holding it is busy; a call goes to the worker that last served its
// (agent, conversation) when that worker is idle, else to the least busy worker holding it.
// Invariants: `queue` is the plugin's one concurrency limit across all its workers (counted in
// the host process); affinity is only a preference (ctx.state is the cross-call contract, never
// isolate globals), so any holder may serve any call; a slot is in `holders` only once its load
// succeeded, and in at most one of `holders` / `loading`. A `dedicated` placement (the plugin's
// own worker: the operator's tier or a quarantine) has exactly that one worker and never spreads.
import { Semaphore } from "../semaphore.ts";
import type { SandboxPlugin } from "../types.ts";
import type { WorkerSlot } from "./worker-slot.ts";

/** (agent, conversation) pairs remembered per plugin for affinity: at least this many recent ones. */
export const MAX_AFFINITY = 4096;

export interface HolderStats {
  /** Calls of this plugin in flight on the worker. */
  inFlight: number;
  /** Calls of this plugin the worker has been sent since it was loaded there. */
  served: number;
  /** Told when `inFlight` falls to 0 (a move waits for it before it unloads the version there). */
  onIdle?: () => void;
}

export class PluginPlacement {
  plugin: SandboxPlugin;
  queue: Semaphore;
  readonly holders = new Map<WorkerSlot, HolderStats>();
  readonly loading = new Set<WorkerSlot>();
  /** In the plugin's own worker (never spread into the shared ones). */
  dedicated: boolean;
  /** A move between tiers in progress (holders may be empty meanwhile; calls wait for it). */
  moving: Promise<void> | null = null;
  #recent = new Map<string, WorkerSlot>();
  #older = new Map<string, WorkerSlot>();

  constructor(plugin: SandboxPlugin, first: WorkerSlot, dedicated: boolean) {
    this.plugin = plugin;
    this.dedicated = dedicated;
    this.queue = new Semaphore(plugin.limits.concurrency);
    this.holders.set(first, { inFlight: 0, served: 0 });
  }

  /** A reload with new code or limits (already loaded in every holder). */
  update(plugin: SandboxPlugin): void {
    // calls holding the old queue release it; new calls count against the new limit
    if (plugin.limits.concurrency !== this.plugin.limits.concurrency)
      this.queue = new Semaphore(plugin.limits.concurrency);
    this.plugin = plugin;
  }

  /** The worker to serve a call of `affinityKey`: its last worker when idle, else the least busy. */
  pick(affinityKey: string): WorkerSlot {
    // candidates: the started holders, or every holder while none has started
    let anyStarted = false;
    for (const slot of this.holders.keys()) {
      if (slot.started) {
        anyStarted = true;
        break;
      }
    }
    const last = this.#recent.get(affinityKey) ?? this.#older.get(affinityKey);
    const candidate = (slot: WorkerSlot) => !anyStarted || slot.started;
    if (last && last.busy === 0 && this.holders.has(last) && candidate(last)) return last;
    let best: WorkerSlot | undefined;
    for (const slot of this.holders.keys()) {
      if (!candidate(slot)) continue;
      if (best === undefined || slot.busy < best.busy || (slot.busy === best.busy && slot === last))
        best = slot;
    }
    return best as WorkerSlot;
  }

  /**
   * Remembers `slot` as the pair's last worker. Two generations of MAX_AFFINITY pairs: when the
   * recent one is full it becomes the older one (whose pairs are forgotten), so at least the
   * MAX_AFFINITY most recent pairs are kept, in O(1) per call and with no Map iteration.
   */
  remember(affinityKey: string, slot: WorkerSlot): void {
    this.#recent.set(affinityKey, slot);
    if (this.#recent.size >= MAX_AFFINITY) {
      this.#older = this.#recent;
      this.#recent = new Map();
    }
  }

  /** The worker to load this plugin into next, or null: some holder is idle, or the cap is reached. */
  spreadTarget(slots: readonly WorkerSlot[], maxWorkers: number): WorkerSlot | null {
    if (this.dedicated || this.holders.size + this.loading.size >= maxWorkers) return null;
    for (const slot of this.holders.keys()) if (slot.busy === 0) return null;
    let best: WorkerSlot | null = null;
    for (const slot of slots) {
      if (this.holders.has(slot) || this.loading.has(slot)) continue;
      if (!best || slot.busy < best.busy) best = slot;
    }
    return best;
  }

  /** Whether `slot` holds this plugin or is loading it. */
  involves(slot: WorkerSlot): boolean {
    return this.holders.has(slot) || this.loading.has(slot);
  }
}
