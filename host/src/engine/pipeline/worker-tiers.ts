// The host's side of the workers sandbox's trust tiers: which plugin namespaces run in a worker
// of their own, kept in the store (plugin_workers), read at start and handed to the sandbox
// with every load (`SandboxPlugin.ownWorker`). An operator sets a tier (`setPluginWorker`, CLI
// `airlock plugins worker`, admin API); the sandbox quarantines a plugin whose isolate aborted a
// shared worker, and this records it, audits it and raises `plugin.quarantined`.
// Invariants: the record is written before the sandbox is told (a restart keeps the tier); a
// quarantine is audited as a denial-like sandbox action (kind "admin", allowed false, the code
// AIRLOCK_SANDBOX_WORKER_CRASHED) with the version, worker and signal, never plugin data; an
// unknown namespace is AIRLOCK_INSTALL_NOT_INSTALLED. Replicas read the tiers at start. Every
// worker death (abort, out of memory, a kill by the supervisor or from outside, an exit) is
// audited too (`workerDeathEntry`: action "sandbox.worker_died", the plugin it was running and
// the cause), whether or not it led to a quarantine.
// A CPU move (the sandbox moved a plugin whose calls its CPU limit kept ending into a low-priority
// worker of its own: docs/sandbox.md) is kept in memory only, until the host restarts or the
// operator sets a tier, so the plugin stays alone across reloads; it is audited (action
// "plugin.moved_for_cpu", allowed false, AIRLOCK_SANDBOX_CPU_LIMIT, details {pluginKey, worker,
// cpuLimitEnds, windowMs, priority}). A stored tier (operator, quarantine) outranks it.
import { AirlockError } from "@airlock/sdk";
import type { HostEventMap, WorkerTier, WorkerTierView } from "../../contracts/host.ts";
import type { CpuMoveNotice, QuarantineNotice, WorkerDeathNotice } from "../../isolation/sandbox/index.ts";
import { nowIso } from "../../state/store/shared.ts";
import type { AuditInput, PluginWorkerRecord, Store } from "../../state/store/types.ts";
import { INSTALL_ERRORS } from "../install/errors.ts";
import { PIPELINE_ERRORS } from "./errors.ts";

export interface WorkerTiersDeps {
  store: Store;
  audit: (entry: AuditInput) => Promise<void>;
  emit: (event: HostEventMap["plugin.quarantined"]) => void;
  /** Loads the namespace's loaded versions again, so the sandbox moves them. */
  reload: (namespace: string) => Promise<void>;
  report: (what: string, error: unknown) => void;
}

export interface WorkerTiers {
  /** Reads the stored tiers (at start). */
  load(): Promise<void>;
  ownWorker(namespace: string): boolean;
  view(namespace: string): WorkerTierView;
  /** The operator's choice; the namespace must be installed. */
  set(namespace: string, tier: WorkerTier): Promise<WorkerTierView>;
  /** The sandbox moved a plugin into its own worker after it aborted a shared one. */
  quarantined(notice: QuarantineNotice): Promise<void>;
  /** The sandbox moved a plugin into a low-priority worker of its own for CPU. */
  cpuMoved(notice: CpuMoveNotice): Promise<void>;
}

export const WORKER_TIERS: readonly WorkerTier[] = ["own", "shared"];

/** The audit row of a worker that died: the plugin it was running (null: unknown) and why. */
export function workerDeathEntry(notice: WorkerDeathNotice): AuditInput {
  return {
    agent: null,
    plugin: notice.namespace,
    tool: null,
    conversationId: null,
    kind: "admin",
    action: "sandbox.worker_died",
    allowed: false,
    success: false,
    error: "AIRLOCK_SANDBOX_WORKER_CRASHED",
    durationMs: null,
    details: {
      worker: notice.worker,
      cause: notice.cause,
      signal: notice.signal,
      exitCode: notice.exitCode,
      pluginKey: notice.pluginKey,
      running: notice.running,
    },
  };
}

export function createWorkerTiers(deps: WorkerTiersDeps): WorkerTiers {
  const own = new Map<string, PluginWorkerRecord>();
  /** CPU moves of this process (never stored). */
  const cpu = new Map<string, { details: Record<string, unknown>; since: string }>();
  const view = (namespace: string): WorkerTierView => {
    const r = own.get(namespace);
    const moved = cpu.get(namespace);
    if (r === undefined && moved !== undefined)
      return { tier: "own", reason: "cpu_limit", since: moved.since, details: moved.details };
    if (r === undefined) return { tier: "shared", reason: null, since: null, details: null };
    return { tier: "own", reason: r.reason, since: r.updatedAt, details: r.details };
  };
  return {
    async load() {
      own.clear();
      for (const r of await deps.store.listPluginWorkers()) own.set(r.namespace, r);
    },
    ownWorker: (namespace) => own.has(namespace) || cpu.has(namespace),
    view,
    async set(namespace, tier) {
      if (!WORKER_TIERS.includes(tier)) {
        throw new AirlockError(
          "AIRLOCK_PLUGIN_WORKER_TIER_INVALID",
          `unknown worker tier ${JSON.stringify(tier)}; accepted: ${WORKER_TIERS.join(", ")}`,
          { status: PIPELINE_ERRORS.AIRLOCK_PLUGIN_WORKER_TIER_INVALID.status },
        );
      }
      if ((await deps.store.getActivation(namespace)) === null) {
        throw new AirlockError("AIRLOCK_INSTALL_NOT_INSTALLED", `no plugin is installed as ${namespace}`, {
          status: INSTALL_ERRORS.AIRLOCK_INSTALL_NOT_INSTALLED.status,
        });
      }
      cpu.delete(namespace); // the operator's choice replaces a CPU move
      if (tier === "own") {
        const record: PluginWorkerRecord = {
          namespace,
          reason: "operator",
          details: null,
          updatedAt: nowIso(),
        };
        await deps.store.putPluginWorker(record);
        own.set(namespace, record);
      } else {
        await deps.store.deletePluginWorker(namespace);
        own.delete(namespace);
      }
      await deps.reload(namespace);
      return view(namespace);
    },
    async quarantined(notice) {
      const details = { pluginKey: notice.pluginKey, worker: notice.worker, signal: notice.signal };
      const record: PluginWorkerRecord = {
        namespace: notice.namespace,
        reason: "quarantine",
        details,
        updatedAt: nowIso(),
      };
      own.set(notice.namespace, record);
      deps.emit({ namespace: notice.namespace, ...details });
      try {
        await deps.store.putPluginWorker(record);
      } catch (error) {
        deps.report(`recording the quarantine of ${notice.namespace}`, error);
      }
      await deps.audit({
        agent: null,
        plugin: notice.namespace,
        tool: null,
        conversationId: null,
        kind: "admin",
        action: "plugin.quarantined",
        allowed: false,
        success: false,
        error: "AIRLOCK_SANDBOX_WORKER_CRASHED",
        durationMs: null,
        details,
      });
    },
    async cpuMoved(notice) {
      const { pluginKey, worker, cpuLimitEnds, windowMs, priority } = notice;
      const details = { pluginKey, worker, cpuLimitEnds, windowMs, priority };
      cpu.set(notice.namespace, { details, since: nowIso() });
      await deps.audit({
        agent: null,
        plugin: notice.namespace,
        tool: null,
        conversationId: null,
        kind: "admin",
        action: "plugin.moved_for_cpu",
        allowed: false,
        success: false,
        error: "AIRLOCK_SANDBOX_CPU_LIMIT",
        durationMs: null,
        details,
      });
    },
  };
}
