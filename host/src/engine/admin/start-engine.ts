// Builds the engine over the parts the composition root (host.ts) opened: the catalogue and its
// sync, the cluster membership, the plugin loader and worker tiers, the remote context, the
// pipeline's deps and code mode; then loads the catalogue.
// Invariants: every agent-state write made through the returned store invalidates the per-call
// agent cache; a malformed ceiling fails here, at start, not at the first call; the catalogue is
// loaded (and its problems reported) before this resolves; `report` never throws.

import type { EgressPolicy, Resolver } from "../../isolation/egress/types.ts";
import type { CpuMoveNotice, QuarantineNotice, WorkerDeathNotice } from "../../isolation/sandbox/index.ts";
import { resolveLimits } from "../../isolation/sandbox/limits.ts";
import type { EffectiveLimits, Sandbox } from "../../isolation/sandbox/types.ts";
import { cacheTokenLookups } from "../../state/auth/token-cache.ts";
import type { ReplicaSettings } from "../../state/cluster/membership.ts";
import { joinCluster } from "../../state/cluster/membership.ts";
import type { AuditInput, InstalledPluginRecord, Store } from "../../state/store/types.ts";
import { createCatalogue } from "../catalogue/catalogue.ts";
import type { SecretCodec } from "../catalogue/secrets-api.ts";
import { createCodeMode } from "../code-mode/index.ts";
import type { RemoteBearer } from "../oauth/wiring.ts";
import { createAgentStateCache, trackAgentWrites } from "../pipeline/agent-states.ts";
import type { GrantIssuer, PipelineDeps } from "../pipeline/deps.ts";
import { createEventBus } from "../pipeline/events.ts";
import { createHookRegistry } from "../pipeline/hooks.ts";
import { createPluginLoader } from "../pipeline/plugin-loader.ts";
import { createSchemaValidator } from "../pipeline/schema-validation.ts";
import { createWorkerTiers, workerDeathEntry } from "../pipeline/worker-tiers.ts";
import { createRemoteContext } from "../remote/context.ts";
import { createRemoteExecutor } from "../remote/execute.ts";
import { createCatalogueSync } from "./catalogue-sync.ts";

/** The host options the engine reads (config.ts ResolvedHostOptions fits). */
export interface EngineSettings {
  ceilings: Partial<EffectiveLimits>;
  egress: EgressPolicy;
  autoApprove: boolean;
  onInternalError: (what: string, error: unknown) => void;
  replica: ReplicaSettings;
  resolver: Resolver | undefined;
  remote: { sessionIdleMs: number };
}

/** The opened parts the engine is built over. */
export interface EngineParts {
  options: EngineSettings;
  store: Store;
  sandbox: Sandbox;
  grants: GrantIssuer;
  codec: SecretCodec;
  /** Where a plugin version's files are on this host (replicas rebuild them from the store). */
  locatePlugin: (plugin: InstalledPluginRecord) => Promise<string>;
  /** Where the sandbox keeps V8 code caches and the host key that authenticates them; null: none. */
  codeCache: { dir: string; key: string } | null;
  /** Registers the listener for the workers sandbox's quarantines (a plugin that aborted a worker). */
  onQuarantine: (listener: (notice: QuarantineNotice) => void) => void;
  /** Registers the listener for the workers sandbox's worker deaths (every cause). */
  onWorkerDeath: (listener: (notice: WorkerDeathNotice) => void) => void;
  /** Registers the listener for the workers sandbox's CPU moves (a plugin its CPU limit kept ending). */
  onCpuMove: (listener: (notice: CpuMoveNotice) => void) => void;
  brokered: { remoteBearer?: RemoteBearer };
  /** Hands the bridge's refusal listener in: each refusal becomes a `capability.refused` event. */
  refusals: (listener: (refusal: { capability: string; code: string }) => void) => void;
}

export type Engine = Awaited<ReturnType<typeof startEngine>>;

type Report = (what: string, error: unknown) => void;

/** A report that never throws: a throwing onInternalError is written to stderr instead. */
function reporterOf(options: EngineSettings): Report {
  return (what, error) => {
    try {
      options.onInternalError(what, error);
    } catch (failure) {
      process.stderr.write(`[airlock] onInternalError threw while reporting ${what}: ${String(failure)}\n`);
    }
  };
}

/** Builds the engine over the parts (catalogue, cluster, loader, tiers, remote, pipeline, code mode). */
export async function startEngine(parts: EngineParts, state: { closed: boolean; stopping: AbortSignal }) {
  const { sandbox, options } = parts;
  const report = reporterOf(options);
  // Every agent-state write made through this host invalidates the per-call agent cache.
  const agentWrites = trackAgentWrites(parts.store, () => agentStates.invalidate());
  // Token lookups answered from memory; a revocation here empties the cache and tells the others.
  const tokens = cacheTokenLookups(agentWrites, { onRevoke: () => membership.announce({ kind: "tokens" }) });
  const store = tokens.store;
  const agentStates = createAgentStateCache(store);
  resolveLimits(options.ceilings, {}); // fail at start, not at the first call, on a malformed ceiling
  const catalogue = createCatalogue(store);
  const events = createEventBus((type, error) => report(`listener of ${type}`, error));
  parts.refusals((refusal) => events.emit("capability.refused", refusal));
  const audit = async (entry: AuditInput) => {
    try {
      await store.appendAudit(entry);
    } catch (error) {
      report("audit write", error);
    }
  };
  // Bound late (closures): the cluster, the remote context and the loader are built below.
  const sync = createCatalogueSync({
    catalogue,
    events,
    agentStates,
    audit,
    report,
    closed: () => state.closed,
    announceToCluster: (agent, reason) => membership.announce({ kind: "tools", agent, reason }),
    retainSessions: (namespaces) => remoteContext.retainSessions(namespaces),
    retainPlugins: (keys) => loader.retain(keys),
  });
  // Replicas sharing a PostgreSQL store: approvals in the store, events fanned out, and every
  // change another replica announces re-read here (cluster/membership.ts). A wake-up may arrive
  // while the catalogue is still loading.
  const membership = await joinCluster({
    store,
    settings: options.replica,
    bus: events,
    report,
    handlers: {
      onTools: (agent, reason) => void sync.remoteChange(agent, reason),
      onLevel: () => agentStates.invalidate(),
      onResync: () => {
        tokens.forgetAll();
        void sync.remoteChange(null, "catalogue");
      },
      onTokens: () => tokens.forgetAll(),
      onTask: (agent, taskId) => events.emit("task.status", { agent, taskId }),
    },
  });
  const loader = createPluginLoader({
    sandbox,
    limitsFor: (plugin) => resolveLimits(options.ceilings, plugin.manifest.limits),
    locate: parts.locatePlugin,
    ...(parts.codeCache === null
      ? {}
      : { codeCacheDir: parts.codeCache.dir, codeCacheKey: parts.codeCache.key }),
    ownWorker: (namespace) => tiers.ownWorker(namespace),
  });
  const tiers = createWorkerTiers({
    store,
    audit: (entry) => audit(entry),
    emit: (event) => events.emit("plugin.quarantined", event),
    reload: (namespace) => loader.reload(namespace),
    report,
  });
  await tiers.load();
  parts.onQuarantine((notice) => {
    tiers.quarantined(notice).catch((error: unknown) => report("recording a quarantine", error));
  });
  parts.onCpuMove((notice) => {
    tiers.cpuMoved(notice).catch((error: unknown) => report("recording a CPU move", error));
  });
  parts.onWorkerDeath((notice) => {
    audit(workerDeathEntry(notice)).catch((error: unknown) => report("auditing a worker death", error));
  });
  const remoteContext = createRemoteContext({
    store,
    decrypt: (ciphertext) => parts.codec.decrypt(ciphertext),
    egress: options.egress,
    resolver: options.resolver,
    audit,
    refreshCatalogue: () => sync.refresh(),
    toolsChanged: () => sync.announce(null, "catalogue"),
    report,
    sessionIdleMs: options.remote.sessionIdleMs,
    ...(parts.brokered.remoteBearer === undefined ? {} : { oauthBearer: parts.brokered.remoteBearer }),
  });
  const hooks = createHookRegistry();
  const deps: PipelineDeps = {
    store,
    catalogue,
    sandbox,
    grants: parts.grants,
    loader,
    hooks,
    approvals: membership.approvals,
    events,
    validator: createSchemaValidator(),
    agentStates,
    autoApprove: options.autoApprove,
    audit,
    auditDurable: (entry) => store.appendAudit(entry),
    report,
    remote: createRemoteExecutor(remoteContext),
    closed: () => state.closed || state.stopping.aborted,
    stopping: state.stopping,
  };
  const codeMode = createCodeMode({ store, catalogue, events, audit, sandboxMode: sandbox.mode, report });
  await sync.refresh();
  return {
    store,
    catalogue,
    events,
    hooks,
    audit,
    report,
    sync,
    membership,
    tiers,
    remoteContext,
    deps,
    codeMode,
  };
}
