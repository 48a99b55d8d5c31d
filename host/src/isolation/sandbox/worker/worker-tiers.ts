// Trust tiers of the workers sandbox: the shared workers (every plugin may be placed in them)
// and workers of a plugin's own — one per namespace, holding only that namespace's versions.
// A plugin gets its own worker when the operator says so (`SandboxPlugin.ownWorker`) or when
// its isolate aborted a shared worker (a quarantine, for the sandbox's lifetime; the host
// persists it and passes `ownWorker` from then on), or when its calls in a shared worker were
// ended by their CPU limit (a CPU move, worker-loads.ts cpuLimitEnded: for the sandbox's lifetime;
// the host keeps it in memory and passes `ownWorker` until it restarts or the operator takes it
// back). A CPU move's worker runs at a lower OS priority (`CpuShare.priority`), so the plugins
// left in the shared workers get the CPU first: a burner's share of the CPU is its worker's.
// Invariants: an own worker never hosts another namespace; it is closed once the namespace has
// no version left in it; the entry-marker files live in one private temporary directory
// removed on close. Indices of own workers follow the shared ones and are never reused. A
// namespace's own worker is lowered when the namespace is CPU-moved (at its start and on every
// restart: worker-slot.ts), and only then.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { SandboxPlugin } from "../types.ts";
import type { WorkerSlot, WorkerSlotHooks } from "./worker-slot.ts";

/** What the operator is told when a plugin is moved into a worker of its own after an abort. */
export interface QuarantineNotice {
  /** The version whose isolate aborted the worker. */
  pluginKey: string;
  namespace: string;
  /** The shared worker it aborted (index) and the signal it died by. */
  worker: number;
  signal: string;
}

/** What the operator is told when a plugin is moved into a low-priority worker of its own for CPU. */
export interface CpuMoveNotice {
  /** The version whose call the CPU limit ended (the last of `cpuLimitEnds`). */
  pluginKey: string;
  namespace: string;
  /** The shared worker the call ran in. */
  worker: number;
  /** CPU-limit ends of the namespace's calls in shared workers within `windowMs` (≥ moveAfter). */
  cpuLimitEnds: number;
  windowMs: number;
  /** The OS priority (niceness) its worker runs at; null when the workers are not lowered. */
  priority: number | null;
}

/**
 * The CPU-share rule: a namespace whose calls in the shared workers are ended by their CPU limit
 * `moveAfter` times within `windowMs` is moved into a worker of its own, run at OS priority
 * `priority` (a niceness, -20..19: os.setPriority; null leaves it as it is). moveAfter 0: never.
 */
export interface CpuShare {
  moveAfter: number;
  windowMs: number;
  priority: number | null;
}

export const namespaceOf = (pluginKey: string): string => pluginKey.slice(0, pluginKey.indexOf("@"));

export class WorkerTiers {
  /** Namespaces moved into their own worker after aborting a shared one. */
  readonly quarantined = new Set<string>();
  /** Namespaces moved into a low-priority worker of their own for CPU (CpuShare). */
  readonly cpuMoved = new Set<string>();
  #own = new Map<string, WorkerSlot>();
  #dir = mkdtempSync(join(tmpdir(), "airlock-workers-"));
  #next: number;
  #makeSlot: (index: number, hooks: WorkerSlotHooks) => WorkerSlot;
  #priority: number | null;

  constructor(
    firstOwnIndex: number,
    makeSlot: (index: number, hooks: WorkerSlotHooks) => WorkerSlot,
    priority: number | null,
  ) {
    this.#next = firstOwnIndex;
    this.#makeSlot = makeSlot;
    this.#priority = priority;
  }

  /** The entry-marker file of worker `index`. */
  markerPath(index: number): string {
    return join(this.#dir, `worker-${index}.entered`);
  }

  /**
   * Whether `plugin` runs in a worker of its own: `ownWorker` true; false is the operator taking a
   * plugin back into the shared workers (a quarantine or a CPU move ends); absent, whether it is
   * quarantined or CPU-moved.
   */
  wantsOwn(plugin: SandboxPlugin): boolean {
    const namespace = namespaceOf(plugin.key);
    if (plugin.ownWorker === false) {
      this.quarantined.delete(namespace);
      this.cpuMoved.delete(namespace);
    }
    return plugin.ownWorker === true || this.quarantined.has(namespace) || this.cpuMoved.has(namespace);
  }

  isOwn(slot: WorkerSlot): boolean {
    for (const own of this.#own.values()) if (own === slot) return true;
    return false;
  }

  /** The namespace's own worker, started on first use; lowered when the namespace is CPU-moved. */
  slotFor(namespace: string): WorkerSlot {
    let slot = this.#own.get(namespace);
    if (slot === undefined) {
      const index = this.#next++;
      slot = this.#makeSlot(index, { markerPath: this.markerPath(index) });
      this.#own.set(namespace, slot);
    }
    if (this.cpuMoved.has(namespace) && this.#priority !== null) slot.lower(this.#priority);
    return slot;
  }

  slots(): WorkerSlot[] {
    return [...this.#own.values()];
  }

  /** Closes the namespace's own worker once no version of it is loaded there. */
  async releaseIfEmpty(namespace: string): Promise<void> {
    const slot = this.#own.get(namespace);
    if (slot === undefined || slot.plugins.size > 0) return;
    this.#own.delete(namespace);
    await slot.close();
  }

  async close(): Promise<void> {
    await Promise.all(this.slots().map((s) => s.close()));
    this.#own.clear();
    rmSync(this.#dir, { recursive: true, force: true });
  }
}
