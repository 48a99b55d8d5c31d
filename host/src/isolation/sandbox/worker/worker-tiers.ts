// Trust tiers of the workers sandbox: the shared workers (every plugin may be placed in them)
// and workers of a plugin's own — one per namespace, holding only that namespace's versions.
// A plugin gets its own worker when the operator says so (`SandboxPlugin.ownWorker`) or when
// its isolate aborted a shared worker (a quarantine, for the sandbox's lifetime; the host
// persists it and passes `ownWorker` from then on).
// Invariants: an own worker never hosts another namespace; it is closed once the namespace has
// no version left in it; the entry-marker files live in one private temporary directory
// removed on close. Indices of own workers follow the shared ones and are never reused.
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

export const namespaceOf = (pluginKey: string): string => pluginKey.slice(0, pluginKey.indexOf("@"));

export class WorkerTiers {
  /** Namespaces moved into their own worker after aborting a shared one. */
  readonly quarantined = new Set<string>();
  #own = new Map<string, WorkerSlot>();
  #dir = mkdtempSync(join(tmpdir(), "airlock-workers-"));
  #next: number;
  #makeSlot: (index: number, hooks: WorkerSlotHooks) => WorkerSlot;

  constructor(firstOwnIndex: number, makeSlot: (index: number, hooks: WorkerSlotHooks) => WorkerSlot) {
    this.#next = firstOwnIndex;
    this.#makeSlot = makeSlot;
  }

  /** The entry-marker file of worker `index`. */
  markerPath(index: number): string {
    return join(this.#dir, `worker-${index}.entered`);
  }

  /**
   * Whether `plugin` runs in a worker of its own: `ownWorker` true; false is the operator taking a
   * plugin back into the shared workers (a quarantine ends); absent, whether it is quarantined.
   */
  wantsOwn(plugin: SandboxPlugin): boolean {
    const namespace = namespaceOf(plugin.key);
    if (plugin.ownWorker === false) this.quarantined.delete(namespace);
    return plugin.ownWorker === true || this.quarantined.has(namespace);
  }

  isOwn(slot: WorkerSlot): boolean {
    for (const own of this.#own.values()) if (own === slot) return true;
    return false;
  }

  /** The namespace's own worker, started on first use. */
  slotFor(namespace: string): WorkerSlot {
    let slot = this.#own.get(namespace);
    if (slot === undefined) {
      const index = this.#next++;
      slot = this.#makeSlot(index, { markerPath: this.markerPath(index) });
      this.#own.set(namespace, slot);
    }
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
