// Where plugin versions live in the workers sandbox: loading and unloading a version, spreading a
// busy one into one more shared worker, moving one between the shared workers and a worker of its
// own (its trust tier changed), and the quarantine of a namespace whose isolate aborted a shared
// worker. All of it acts on the fleet's placements (worker-fleet.ts, worker-placement.ts).
// Invariants: a first load reserves its worker before it awaits, so concurrent first loads
// spread out; a reload reaches every worker holding the version; unload unloads it from every
// worker holding or loading it, and closes a namespace's own worker once it is empty; a spread or
// a move that completes after the version was unloaded or replaced takes its copy back out
// (unless the current placement uses that worker); a quarantined namespace is taken out of the
// aborted worker synchronously (so its restart does not reload it) and its calls wait for the
// move (PluginPlacement.moving). Failures of background loads and unloads are reported to onLog.
// A CPU move (cpuLimitEnded) takes a namespace whose calls in the shared workers keep being ended
// by their CPU limit into a low-priority worker of its own; unlike a quarantine its shared worker
// lives on: the version leaves its placement's holders at once (new calls wait for the move, so
// none of them enters a shared worker again), and is unloaded from the shared workers once the
// move is done and its calls still running there have ended; no spread starts while a move
// runs, and a spread that ends after a move into the plugin's own worker is taken back out.
import type { SandboxPlugin } from "../types.ts";
import { assertOpen, type WorkerFleet } from "./worker-fleet.ts";
import { type HolderStats, PluginPlacement } from "./worker-placement.ts";
import type { WorkerAbort, WorkerSlot } from "./worker-slot.ts";
import { type CpuShare, namespaceOf } from "./worker-tiers.ts";

/** Sandbox.load in workers mode: a first load, a reload, or a move to another tier. */
export async function loadPlugin(fleet: WorkerFleet, plugin: SandboxPlugin): Promise<void> {
  assertOpen(fleet);
  const { placements, reserved, tiers } = fleet;
  const placed = placements.get(plugin.key);
  const own = tiers.wantsOwn(plugin);
  if (placed) {
    await placed.moving?.catch(() => undefined);
    if (placed.dedicated !== own) return move(fleet, placed, plugin, own); // the tier changed
    // a reload: every worker holding the version takes the new code and limits
    await Promise.all([...placed.holders.keys()].map((s) => s.load(plugin)));
    placed.update(plugin);
    return;
  }
  // choose (and reserve) a worker before awaiting, so concurrent loads spread out
  let slot = reserved.get(plugin.key);
  if (!slot) {
    slot = own ? tiers.slotFor(namespaceOf(plugin.key)) : fewestPlugins(fleet);
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
}

/** Sandbox.unload in workers mode: out of every worker holding or loading the version. */
export async function unloadPlugin(fleet: WorkerFleet, pluginKey: string): Promise<void> {
  const placed = fleet.placements.get(pluginKey);
  fleet.placements.delete(pluginKey);
  if (!placed) return;
  const targets = [...placed.holders.keys(), ...placed.loading];
  await Promise.all(targets.map((s) => s.unload(pluginKey)));
  await releaseIfUnused(fleet, namespaceOf(pluginKey));
}

/**
 * Closes the namespace's own worker once no version of it is loaded, loading or moving there: a
 * version whose first load or move into it is still running (not yet in the slot's plugins) keeps it.
 */
async function releaseIfUnused(fleet: WorkerFleet, namespace: string): Promise<void> {
  for (const [key, slot] of fleet.reserved)
    if (namespaceOf(key) === namespace && fleet.tiers.isOwn(slot)) return;
  for (const [key, placed] of fleet.placements)
    if (namespaceOf(key) === namespace && (placed.dedicated || placed.moving !== null)) return;
  await fleet.tiers.releaseIfEmpty(namespace);
}

/** The shared worker hosting (or about to host) the fewest plugin versions. */
function fewestPlugins({ slots, placements, reserved }: WorkerFleet): WorkerSlot {
  const counts = new Map(slots.map((s) => [s, 0]));
  for (const p of placements.values()) for (const s of p.holders.keys()) counts.set(s, counts.get(s)! + 1);
  for (const s of reserved.values()) counts.set(s, counts.get(s)! + 1);
  return slots.reduce((best, s) => (counts.get(s)! < counts.get(best)! ? s : best), slots[0]!);
}

/** Loads `placed` into one more worker in the background when all its holders are busy. */
export function spread(fleet: WorkerFleet, placed: PluginPlacement): void {
  if (placed.moving !== null) return; // its workers are about to change
  const slot = placed.spreadTarget(fleet.slots, fleet.maxWorkersPerPlugin);
  if (!slot) return;
  const { placements, onLog } = fleet;
  const plugin = placed.plugin;
  placed.loading.add(slot);
  slot.load(plugin).then(
    () => {
      placed.loading.delete(slot);
      if (placements.get(plugin.key) === placed && placed.plugin === plugin && !placed.dedicated) {
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
}

/** Resolves once no call of the version is in flight on a worker it is leaving (HolderStats.onIdle). */
function whenIdle(stats: HolderStats | undefined): Promise<void> {
  if (stats === undefined || stats.inFlight === 0) return Promise.resolve();
  return new Promise<void>((resolve) => {
    stats.onIdle = resolve;
  });
}

/** Moves a loaded version into its own worker (own) or back to a shared one; calls wait for it. */
function move(
  fleet: WorkerFleet,
  placed: PluginPlacement,
  plugin: SandboxPlugin,
  own: boolean,
  leaving: Array<[WorkerSlot, HolderStats]> = [],
): Promise<void> {
  const { tiers, onLog } = fleet;
  const namespace = namespaceOf(plugin.key);
  const target = own ? tiers.slotFor(namespace) : fewestPlugins(fleet);
  const moving = target.load(plugin).then(
    () => {
      const old: Array<[WorkerSlot, HolderStats | undefined]> = [
        ...leaving,
        ...[...placed.holders].filter(([s]) => s !== target),
        ...[...placed.loading]
          .filter((s) => s !== target)
          .map((s): [WorkerSlot, undefined] => [s, undefined]),
      ];
      placed.holders.clear();
      placed.holders.set(target, { inFlight: 0, served: 0 });
      placed.dedicated = own;
      placed.update(plugin);
      // a call still running in an old worker finishes there: the copy leaves once it is idle
      for (const [slot, stats] of old)
        whenIdle(stats)
          .then(() => (placed.involves(slot) ? undefined : slot.unload(plugin.key)))
          .then(() => (tiers.isOwn(slot) ? releaseIfUnused(fleet, namespace) : undefined))
          .catch((error: { code?: string }) =>
            // the move itself succeeded; WORKER_CRASHED: this worker died meanwhile (its copy went
            // with it: unload took the key out of slot.plugins first, so the restart skips it)
            onLog(
              error.code === "AIRLOCK_SANDBOX_WORKER_CRASHED"
                ? `[worker ${slot.index}] died before ${plugin.key} (moved to worker ${target.index}) was unloaded from it`
                : `[worker ${slot.index}] unloading ${plugin.key} (moved to worker ${target.index}) failed: ${error.code}`,
            ),
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
}

/**
 * A shared worker was aborted by `abort.culprit`, or killed for not answering while it ran it:
 * its namespace leaves the shared workers.
 */
export function quarantine(fleet: WorkerFleet, slot: WorkerSlot, abort: WorkerAbort): void {
  const { tiers, onLog } = fleet;
  const what = abort.cause === "abort" ? `aborted (${abort.signal})` : "killed for not answering";
  if (abort.culprit === null) {
    onLog(`[worker ${slot.index}] ${what}; the plugin that caused it is unknown`);
    return;
  }
  if (tiers.isOwn(slot)) return; // already alone: only its own calls failed
  const namespace = namespaceOf(abort.culprit);
  tiers.quarantined.add(namespace);
  // taken out synchronously, so the restarted worker does not reload it
  for (const key of [...slot.plugins.keys()]) if (namespaceOf(key) === namespace) slot.plugins.delete(key);
  for (const [key, placed] of fleet.placements) {
    if (namespaceOf(key) !== namespace || placed.dedicated) continue;
    placed.holders.delete(slot);
    placed.loading.delete(slot);
    move(fleet, placed, placed.plugin, true).catch(() => undefined); // reported by move
  }
  onLog(
    `[worker ${slot.index}] ${what} running ${abort.culprit}; ${namespace} now runs in a worker of its own`,
  );
  fleet.onQuarantine?.({ pluginKey: abort.culprit, namespace, worker: slot.index, signal: abort.signal });
}

/** The CPU-limit ends of a namespace still within the rule's window, with one more at `now`. */
function countEnd(ends: number[] | undefined, now: number, { windowMs }: CpuShare): number[] {
  const kept = (ends ?? []).filter((t) => now - t < windowMs);
  kept.push(now);
  return kept;
}

/**
 * A call of `pluginKey` in the shared worker `slot` was ended by its CPU limit. Once its namespace
 * has had `cpuShare.moveAfter` such ends within `windowMs`, it leaves the shared workers for a
 * worker of its own at the lower priority (worker-tiers.ts), and `onCpuMove` tells the host. A
 * namespace already in a worker of its own (its tier, a quarantine, an earlier move) is not counted.
 */
export function cpuLimitEnded(fleet: WorkerFleet, slot: WorkerSlot, pluginKey: string): void {
  const { tiers, cpuShare, cpuLimitEnds, onLog } = fleet;
  if (cpuShare.moveAfter === 0 || fleet.closed || tiers.isOwn(slot)) return;
  const namespace = namespaceOf(pluginKey);
  if (tiers.cpuMoved.has(namespace) || tiers.quarantined.has(namespace)) return;
  const ends = countEnd(cpuLimitEnds.get(namespace), Date.now(), cpuShare);
  if (ends.length < cpuShare.moveAfter) {
    cpuLimitEnds.set(namespace, ends);
    return;
  }
  cpuLimitEnds.delete(namespace);
  tiers.cpuMoved.add(namespace);
  for (const [key, placed] of fleet.placements) {
    if (namespaceOf(key) !== namespace || placed.dedicated) continue;
    // its new calls wait for the move (PluginPlacement.moving), as a quarantine's do: no more of
    // them enters a shared worker; its calls still running there finish there (move)
    const leaving = [...placed.holders];
    placed.holders.clear();
    move(fleet, placed, placed.plugin, true, leaving).catch(() => {
      // reported by move; the shared copies serve again
      if (placed.holders.size === 0) for (const [slot, stats] of leaving) placed.holders.set(slot, stats);
    });
  }
  const { windowMs, priority } = cpuShare;
  onLog(
    `[worker ${slot.index}] ${pluginKey}'s calls were ended by their CPU limit ${ends.length} time(s); ` +
      `${namespace} now runs in a worker of its own${priority === null ? "" : ` at priority ${priority}`}`,
  );
  fleet.onCpuMove?.({
    pluginKey,
    namespace,
    worker: slot.index,
    cpuLimitEnds: ends.length,
    windowMs,
    priority,
  });
}
