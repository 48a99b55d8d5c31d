// The one composition root. createHost(options): opens the store, the vault and the sandbox,
// builds the capabilities and the bridge, the plugin lifecycle, then the engine (catalogue,
// cluster membership, plugin loader, pipeline, code mode, tasks) and the host's operations from
// the admin modules (engine/admin/, one per area, each auditing and announcing its changes), and
// loads the active plugins' catalogue. Plugins are loaded into the sandbox lazily, on their first call.
// Invariants: a failure while starting closes whatever was already opened and rethrows; the
// sandbox never receives the store, the vault or a secret; the host owns (and closes) every
// part it opened, never one the embedder handed in (`{kind: "instance"}` store); every part
// writes audit entries through one group-commit writer (pipeline/audit-writer.ts), flushed
// before any audit query and on close; the catalogue is loaded before the host is returned and
// reloaded after every lifecycle change; close() finishes the tasks, denies pending approvals,
// leaves the cluster, then closes the sandbox, the remote sessions, code mode and the store it owns.

import { join } from "node:path";
import { AirlockError } from "@airlock/sdk";
import { SDK_VERSION } from "@airlock/sdk/manifest";
import { type HostOptions, type ResolvedHostOptions, resolveHostOptions } from "./config.ts";
import type { AirlockHost, PluginLifecycle } from "./contracts/host.ts";
import { createAgentOps } from "./engine/admin/agents.ts";
import { createUiOps } from "./engine/admin/apps.ts";
import { createCodeModeOps } from "./engine/admin/code-mode.ts";
import type { AdminContext } from "./engine/admin/context.ts";
import { createObserveOps } from "./engine/admin/observe.ts";
import { createPeopleOps } from "./engine/admin/people.ts";
import { createPluginOps } from "./engine/admin/plugins.ts";
import { createRunOps } from "./engine/admin/runs.ts";
import { createSecretOps } from "./engine/admin/secrets.ts";
import { createSkillOps } from "./engine/admin/skills.ts";
import { type EngineParts, startEngine } from "./engine/admin/start-engine.ts";
import { createSurfaceStateOps } from "./engine/admin/surface-state.ts";
import { createTokenOps } from "./engine/admin/tokens.ts";
import { createToolOps } from "./engine/admin/tools.ts";
import { createAdminAudit } from "./engine/catalogue/admin-audit.ts";
import { createPluginLifecycle } from "./engine/install/index.ts";
import { importRememberedKeys } from "./engine/install/namespace-trust.ts";
import { localPluginDir } from "./engine/install/packages.ts";
import type { ModelsAdmin, OAuthAdmin } from "./engine/oauth/admin.ts";
import type { RemoteBearer } from "./engine/oauth/wiring.ts";
import { createBrokered } from "./engine/oauth/wiring.ts";
import { inChildSpan } from "./engine/observability/spans.ts";
import * as elicitForms from "./engine/people/form-schema.ts";
import { createAuditWriter, withAuditWriter } from "./engine/pipeline/audit-writer.ts";
import { PIPELINE_ERRORS } from "./engine/pipeline/errors.ts";
import { bridgeGrantIssuer } from "./engine/pipeline/grants.ts";
import { openHostTasks } from "./engine/tasks/open.ts";
import { taskIsResumable } from "./engine/tasks/resumable.ts";
import { createBridge } from "./isolation/bridge/bridge.ts";
import { createArtifactsCapability, startArtifactSweeper } from "./isolation/capabilities/artifacts.ts";
import { createAuditCapability } from "./isolation/capabilities/audit.ts";
import { createElicitCapability } from "./isolation/capabilities/elicit.ts";
import { createFetchCapability } from "./isolation/capabilities/fetch.ts";
import { createKnowledgeCapability } from "./isolation/capabilities/knowledge.ts";
import { createNotifyCapabilities } from "./isolation/capabilities/notify.ts";
import { createSecretsCapability } from "./isolation/capabilities/secrets.ts";
import { createStateCapability } from "./isolation/capabilities/state.ts";
import type { CpuMoveNotice, QuarantineNotice, WorkerDeathNotice } from "./isolation/sandbox/index.ts";
import { createSandbox, type Sandbox } from "./isolation/sandbox/index.ts";
import { createSecretSource, createVault, openVault, type Vault } from "./state/secrets/index.ts";
import { openStore } from "./state/store/index.ts";
import type { AuditInput, Store } from "./state/store/types.ts";

/** For embedders and test harnesses that open the store themselves (`store: {kind: "instance"}`). */
export { openStore };
export type { Store };

async function openHostStore(options: ResolvedHostOptions): Promise<{ store: Store; owned: boolean }> {
  const s = options.store;
  if (s.kind === "instance") return { store: s.store, owned: false };
  if (s.kind === "sqlite")
    return {
      store: await openStore({
        kind: "sqlite",
        dataDir: s.dataDir ?? options.dataDir,
        ...(s.durability === undefined ? {} : { durability: s.durability }),
        ...(s.maxBytes === undefined ? {} : { maxBytes: s.maxBytes }),
      }),
      owned: true,
    };
  return {
    store: await openStore({
      kind: "postgres",
      url: s.url,
      ...(s.schema === undefined ? {} : { schema: s.schema }),
      ...(s.maxConnections === undefined ? {} : { maxConnections: s.maxConnections }),
    }),
    owned: true,
  };
}

function openHostVault(options: ResolvedHostOptions): Vault {
  if (options.masterKey !== undefined) return createVault(Buffer.from(options.masterKey, "base64"));
  return openVault({ dataDir: options.dataDir, env: process.env });
}

/** Relays the workers sandbox's quarantines to the host assembled after it. */
type QuarantineRelay = {
  listener: ((notice: QuarantineNotice) => void) | null;
  /** The workers sandbox's deaths (any cause), for the audit. */
  death: ((notice: WorkerDeathNotice) => void) | null;
  /** The workers sandbox's CPU moves (a plugin its CPU limit kept ending), for the audit. */
  cpu: ((notice: CpuMoveNotice) => void) | null;
};

function openSandbox(options: ResolvedHostOptions, relay: QuarantineRelay): Sandbox {
  const s = options.sandbox;
  if (s.instance !== undefined) return s.instance;
  const report = (line: string) => options.onInternalError("sandbox", line);
  if (s.mode === "in-process") return createSandbox({ mode: "in-process", onWarning: report });
  return createSandbox({
    mode: "workers",
    onLog: report,
    onQuarantine: (notice) => relay.listener?.(notice),
    onWorkerDeath: (notice) => relay.death?.(notice),
    onCpuMove: (notice) => relay.cpu?.(notice),
    ...(s.cpuShare === undefined ? {} : { cpuShare: s.cpuShare }),
    ...(s.workers === undefined ? {} : { workers: s.workers }),
    ...(s.wakeSpinMs === undefined ? {} : { wakeSpinMs: s.wakeSpinMs }),
  });
}

export async function createHost(options: HostOptions = {}): Promise<AirlockHost> {
  const resolved = resolveHostOptions(options);
  const opened = await openHostStore(resolved);
  const { owned } = opened;
  // Audit entries (one per tool call and per capability call) share commits: group commit.
  // SQLite: journaled first (durable at once; committed in batches off the call's path).
  // PostgreSQL (replicas): committed before the append resolves, so every replica's queryAudit
  // sees a finished call.
  const journal = opened.store.openAuditJournal?.();
  const auditWriter = createAuditWriter(opened.store, {
    onCommitError: (error) => resolved.onInternalError("audit write", error),
    ...(journal === undefined ? {} : { journal }),
  });
  const store = withAuditWriter(opened.store, auditWriter);
  let sandbox: Sandbox | undefined;
  let stopSweeper: (() => void) | undefined;
  try {
    // keys an older host kept in its data dir join the store, where every replica finds them
    await importRememberedKeys(store, resolved.dataDir);
    const vault = openHostVault(resolved);
    const secrets = createSecretSource({ store, vault });
    const audit = (entry: AuditInput) => store.appendAudit(entry);
    const brokered = createBrokered({ store, vault, secrets, audit, options: resolved });
    let onRefusal: ((refusal: { capability: string; code: string }) => void) | undefined;
    const bridge = createBridge({
      audit,
      onRefusal: (refusal) => onRefusal?.(refusal),
      childSpan: inChildSpan,
      capabilities: [
        createSecretsCapability({ source: secrets }),
        createStateCapability({ store }),
        createAuditCapability({ store }),
        createArtifactsCapability({ store, now: resolved.clock }),
        createKnowledgeCapability({ store, audit }),
        ...createNotifyCapabilities(),
        createElicitCapability({ audit, forms: elicitForms }),
        createFetchCapability({
          secrets,
          policy: resolved.egress,
          audit,
          ...(resolved.resolver === undefined ? {} : { resolver: resolved.resolver }),
          bearer: brokered.bearer,
        }),
        ...brokered.capabilities,
      ],
    });
    const relay: QuarantineRelay = { listener: null, death: null, cpu: null };
    sandbox = openSandbox(resolved, relay);
    stopSweeper = startArtifactSweeper({
      store,
      now: resolved.clock,
      onError: (error) => resolved.onInternalError("artifact sweep", error),
    });
    const sweeper = stopSweeper;
    return await wireHost({
      options: resolved,
      store,
      ownsStore: owned,
      sandbox,
      grants: bridgeGrantIssuer(bridge, resolved.egress),
      codec: vault,
      brokered: brokered.admin,
      // V8 code caches on disk, authenticated under a key derived from the master key (never a
      // value plugin code can reach); a file that does not verify is discarded, never loaded
      codeCache: resolved.codeCache
        ? { dir: join(resolved.dataDir, "code-cache"), key: vault.deriveKey("code-cache").toString("base64") }
        : null,
      onQuarantine: (listener) => {
        relay.listener = listener;
      },
      onWorkerDeath: (listener) => {
        relay.death = listener;
      },
      onCpuMove: (listener) => {
        relay.cpu = listener;
      },
      lifecycle: createPluginLifecycleFor(store, resolved),
      locatePlugin: (plugin) =>
        localPluginDir({ store, dataDir: resolved.dataDir, trust: resolved.trust }, plugin),
      refusals: (listener) => {
        onRefusal = listener;
      },
      closeExtras: async () => {
        sweeper();
        await auditWriter.flush();
        auditWriter.close();
      },
    });
  } catch (error) {
    stopSweeper?.();
    journal?.close(auditWriter.pending === 0);
    await sandbox
      ?.close()
      .catch((e: unknown) => resolved.onInternalError("closing the sandbox after a failed start", e));
    if (owned)
      await store
        .close()
        .catch((e: unknown) => resolved.onInternalError("closing the store after a failed start", e));
    throw error;
  }
}

/** The SDK versions this host runs: the same major as the SDK it ships with. */
const SUPPORTED_SDK = `^${SDK_VERSION}`;

/** The installer (engine/install/) with this host's store, data dir, registry, trust roots and version. */
function createPluginLifecycleFor(store: Store, options: ResolvedHostOptions): PluginLifecycle {
  return createPluginLifecycle({
    store,
    dataDir: options.dataDir,
    ...(options.registryUrl === undefined ? {} : { registryUrl: options.registryUrl }),
    trust: options.trust,
    hostVersion: options.hostVersion,
    supportedSdk: SUPPORTED_SDK,
  });
}

/** What createHost opened, handed to the engine and the admin operations. */
interface HostParts extends EngineParts {
  options: ResolvedHostOptions;
  /** Whether close() closes the store (false for a store handed in by the embedder). */
  ownsStore: boolean;
  lifecycle: PluginLifecycle;
  /** Closes what the parts opened besides the sandbox and the store (bridge sweepers, pools). */
  closeExtras: () => Promise<void>;
  /** OAuth connections and model access (host/src/engine/oauth/wiring.ts). */
  brokered: { oauth: OAuthAdmin; models: ModelsAdmin; remoteBearer?: RemoteBearer };
}

/** The AirlockHost over the parts: the engine, then the admin modules' operations, then close. */
async function wireHost(parts: HostParts): Promise<AirlockHost> {
  const stopping = new AbortController();
  const state = { closed: false, stopping: stopping.signal };
  /** The one close in progress: a second close() waits for it instead of closing twice. */
  let closing: Promise<void> | undefined;
  const engine = await startEngine(parts, state);
  const { store, catalogue, events, report, sync, membership, codeMode, options } = {
    ...engine,
    options: parts.options,
  };
  const ctx: AdminContext = {
    store,
    catalogue,
    // fail closed: an admin action whose entry cannot be written is not acknowledged (admin-audit.ts)
    admin: createAdminAudit((entry) =>
      store.appendAudit(entry).catch((error: unknown) => {
        report("admin audit write", error);
        throw error;
      }),
    ),
    announce: sync.announce,
    fresh: sync.fresh,
  };
  const runs = createRunOps({
    deps: engine.deps,
    store,
    catalogue,
    hooks: engine.hooks,
    codeMode,
    replica: membership.replica,
    assertOpen: () => {
      if (state.closed) {
        throw new AirlockError("AIRLOCK_HOST_CLOSED", "the host is closed", {
          status: PIPELINE_ERRORS.AIRLOCK_HOST_CLOSED.status,
        });
      }
    },
    fresh: sync.fresh,
  });
  const tasks = openHostTasks({
    options,
    store,
    replica: membership.replica,
    call: runs.callTool,
    resumable: (toolName) => taskIsResumable(catalogue.get(toolName)?.tool),
    report,
    // A task that ended here is told to this replica's MCP streams and announced to the others'.
    onStatus: (agent, taskId) => {
      events.emit("task.status", { agent, taskId });
      membership.announce({ kind: "task", agent, id: taskId });
    },
  });
  return {
    version: options.hostVersion,
    tasks,
    ...createPluginOps(ctx, {
      lifecycle: parts.lifecycle,
      tiers: engine.tiers,
      remoteContext: engine.remoteContext,
      refresh: sync.refresh,
    }),
    ...createAgentOps(ctx, {
      announceLevel: (agent) => membership.announce({ kind: "level", agent }),
      pendingApprovals: (agent) => membership.approvals.list(agent),
    }),
    ...createTokenOps(ctx),
    ...createToolOps(ctx),
    ...createSkillOps(ctx),
    ...createUiOps(ctx, parts.locatePlugin),
    ...createSecretOps(ctx, parts.codec),
    ...createCodeModeOps(ctx, codeMode),
    ...runs,
    ...createPeopleOps(ctx, membership.approvals),
    ...createObserveOps({ store, events, membership, sandbox: parts.sandbox, codec: parts.codec }),
    ...createSurfaceStateOps(store),
    oauth: parts.brokered.oauth,
    models: parts.brokered.models,
    async stopCalls() {
      if (!stopping.signal.aborted) {
        const reason = "The host is shutting down; the call was ended before it finished.";
        stopping.abort(
          new AirlockError("AIRLOCK_HOST_CLOSED", reason, {
            status: PIPELINE_ERRORS.AIRLOCK_HOST_CLOSED.status,
          }),
        );
      }
      await membership.approvals.denyAll("the host is shutting down");
    },
    close() {
      closing ??= (async () => {
        await tasks.close(); // before `closed`: the calls it aborts settle through the pipeline
        state.closed = true;
        await membership.approvals.denyAll("the host is shutting down");
        await membership.close().catch((error: unknown) => report("leaving the cluster", error));
        await parts.sandbox.close();
        await engine.remoteContext.close();
        await codeMode.close().catch((error: unknown) => report("closing the code-mode sandbox", error));
        await parts.closeExtras();
        if (parts.ownsStore) await store.close();
      })();
      return closing;
    },
  };
}
