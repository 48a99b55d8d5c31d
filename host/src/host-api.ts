// The AirlockHost implementation over its parts (store, sandbox, grant issuer, secret codec,
// plugin lifecycle). createHost (host.ts) opens the parts; this file is everything the library
// API does with them, so it can be assembled from any conforming parts.
// Invariants: the catalogue is loaded before the host is returned and reloaded after every
// lifecycle change; tool failures are outcomes, admin mistakes are AirlockErrors with codes;
// close() denies pending approvals, then closes the sandbox, then the store it owns.
import { AirlockError } from "@airlock/sdk";
import type { Presentation } from "@airlock/sdk/manifest";
import type { ResolvedHostOptions } from "./config.ts";
import type {
  AirlockHost,
  ModelTool,
  PluginLifecycle,
  RunOptions,
  ToolsChangeReason,
} from "./contracts/host.ts";
import { type AdminAudit, audited, createAdminAudit } from "./engine/catalogue/admin-audit.ts";
import {
  catalogueError,
  listAgentTools,
  requireAgent,
  setToolsEnabled,
  toCatalogueTool,
} from "./engine/catalogue/agent-tools.ts";
import { type CatalogueProblem, createCatalogue } from "./engine/catalogue/catalogue.ts";
import { deleteSecret, listSecrets, type SecretCodec, setSecrets } from "./engine/catalogue/secrets-api.ts";
import { createCodeMode } from "./engine/code-mode/index.ts";
import { withSnippetSkills } from "./engine/code-mode/snippet-skills.ts";
import { createSnippetsAdmin } from "./engine/code-mode/snippets-admin.ts";
import type { ModelsAdmin, OAuthAdmin } from "./engine/oauth/admin.ts";
import type { RemoteBearer } from "./engine/oauth/wiring.ts";
import { checkPatch, readPolicy, writePolicy } from "./engine/people/policy.ts";
import { createAgentStateCache, trackAgentWrites } from "./engine/pipeline/agent-states.ts";
import type { GrantIssuer, PipelineDeps } from "./engine/pipeline/deps.ts";
import { PIPELINE_ERRORS } from "./engine/pipeline/errors.ts";
import { createEventBus } from "./engine/pipeline/events.ts";
import { createHookRegistry } from "./engine/pipeline/hooks.ts";
import { createPluginLoader, pluginKey } from "./engine/pipeline/plugin-loader.ts";
import { startRun } from "./engine/pipeline/run.ts";
import { createSchemaValidator } from "./engine/pipeline/schema-validation.ts";
import { createWorkerTiers } from "./engine/pipeline/worker-tiers.ts";
import { createRemoteContext } from "./engine/remote/context.ts";
import { createRemoteExecutor } from "./engine/remote/execute.ts";
import { createRemoteServers } from "./engine/remote/servers.ts";
import { skillHostTools } from "./engine/skills/skill-tools.ts";
import { listSkills, readSkill, setSkillsEnabled } from "./engine/skills/skills.ts";
import { openHostTasks } from "./engine/tasks/open.ts";
import type { QuarantineNotice } from "./isolation/sandbox/index.ts";
import { resolveLimits } from "./isolation/sandbox/limits.ts";
import type { Sandbox } from "./isolation/sandbox/types.ts";
import { authenticate, issueToken } from "./state/auth/tokens.ts";
import { joinCluster } from "./state/cluster/membership.ts";
import type { AgentKnowledgeLevel, AuditInput, InstalledPluginRecord, Store } from "./state/store/types.ts";

export interface HostParts {
  options: ResolvedHostOptions;
  store: Store;
  /** Whether close() closes the store (false for a store handed in by the embedder). */
  ownsStore: boolean;
  sandbox: Sandbox;
  grants: GrantIssuer;
  codec: SecretCodec;
  /** Builds the lifecycle once the host's reload hook exists. */
  lifecycle: PluginLifecycle;
  /** Where a plugin version's files are on this host (replicas rebuild them from the store). */
  locatePlugin?: (plugin: InstalledPluginRecord) => Promise<string>;
  /** Where the sandbox keeps V8 code caches and the host key that authenticates them; none when absent. */
  codeCache?: { dir: string; key: string };
  /** Registers the listener for the workers sandbox's quarantines (a plugin that aborted a worker). */
  onQuarantine?: (listener: (notice: QuarantineNotice) => void) => void;
  /** Closes what the parts opened besides the sandbox and the store (bridge sweepers, pools). */
  closeExtras?: () => Promise<void>;
  /** OAuth connections and model access (host/src/engine/oauth/wiring.ts). */
  brokered: { oauth: OAuthAdmin; models: ModelsAdmin; remoteBearer?: RemoteBearer };
  /** Hands the bridge's refusal listener in: each refusal becomes a `capability.refused` event. */
  refusals?: (listener: (refusal: { capability: string; code: string }) => void) => void;
}

const AGENT_SLUG = /^[a-z0-9][a-z0-9-]{0,63}$/;
const LEVELS: ReadonlySet<string> = new Set(["none", "read", "write", "manage"]);

export async function assembleHost(parts: HostParts): Promise<AirlockHost> {
  let closed = false;
  /** The one close in progress: a second close() waits for it instead of closing twice. */
  let closing: Promise<void> | undefined;
  const { sandbox, options } = parts;
  // Every agent-state write made through this host invalidates the per-call agent cache.
  const store = trackAgentWrites(parts.store, () => agentStates.invalidate());
  const agentStates = createAgentStateCache(store);
  const report = (what: string, error: unknown) => {
    try {
      options.onInternalError(what, error);
    } catch (failure) {
      process.stderr.write(`[airlock] onInternalError threw while reporting ${what}: ${String(failure)}\n`);
    }
  };
  resolveLimits(options.ceilings, {}); // fail at start, not at the first call, on a malformed ceiling
  const catalogue = createCatalogue(store);
  const events = createEventBus((type, error) => report(`listener of ${type}`, error));
  parts.refusals?.((refusal) => events.emit("capability.refused", refusal));
  const hooks = createHookRegistry();
  // Replicas sharing a PostgreSQL store: approvals in the store, events fanned out, and every
  // change another replica announces re-read here (cluster/membership.ts). Handlers are function
  // declarations below (hoisted): a wake-up may arrive while the catalogue is still loading.
  const membership = await joinCluster({
    store,
    settings: options.replica,
    bus: events,
    report,
    handlers: {
      onTools: (agent, reason) => void remoteChange(agent, reason),
      onLevel: () => agentStates.invalidate(),
      onResync: () => void remoteChange(null, "catalogue"),
      onTask: (agent, taskId) => events.emit("task.status", { agent, taskId }),
    },
  });
  const approvals = membership.approvals;
  const loader = createPluginLoader({
    sandbox,
    limitsFor: (plugin) => resolveLimits(options.ceilings, plugin.manifest.limits),
    ...(parts.locatePlugin === undefined ? {} : { locate: parts.locatePlugin }),
    ...(parts.codeCache === undefined
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
  parts.onQuarantine?.((notice) => {
    tiers.quarantined(notice).catch((error: unknown) => report("recording a quarantine", error));
  });
  const audit = async (entry: AuditInput) => {
    try {
      await store.appendAudit(entry);
    } catch (error) {
      report("audit write", error);
    }
  };
  const remoteContext = createRemoteContext({
    store,
    decrypt: (ciphertext) => parts.codec.decrypt(ciphertext),
    egress: options.egress,
    resolver: options.resolver,
    audit,
    refreshCatalogue: () => refreshCatalogue(),
    toolsChanged: () => announce(null, "catalogue"),
    report,
    sessionIdleMs: options.remote.sessionIdleMs,
    ...(parts.brokered.remoteBearer === undefined ? {} : { oauthBearer: parts.brokered.remoteBearer }),
  });
  const deps: PipelineDeps = {
    store,
    catalogue,
    sandbox,
    grants: parts.grants,
    loader,
    hooks,
    approvals,
    events,
    validator: createSchemaValidator(),
    agentStates,
    autoApprove: options.autoApprove,
    audit,
    report,
    remote: createRemoteExecutor(remoteContext),
    closed: () => closed,
  };

  const codeMode = createCodeMode({
    store,
    catalogue,
    events,
    audit,
    sandboxMode: sandbox.mode,
    report,
  });

  const changed = (agent: string | null, reason: ToolsChangeReason) =>
    events.emit("tools.changed", { agent, reason });
  /** A change made through this host: raised here and announced to the other replicas. */
  const announce = (agent: string | null, reason: ToolsChangeReason) => {
    changed(agent, reason);
    membership.announce({ kind: "tools", agent, reason });
  };
  /** Another replica announced a change (or the listener reconnected): re-read, then raise it here. */
  async function remoteChange(agent: string | null, reason: ToolsChangeReason): Promise<void> {
    agentStates.invalidate();
    try {
      if (reason === "catalogue" && !closed) {
        const problems = await catalogue.sync();
        if (problems !== null) await settle(problems);
      }
    } catch (error) {
      report("re-reading the catalogue after another replica's change", error);
    }
    changed(agent, reason);
  }
  async function refreshCatalogue(): Promise<void> {
    await settle(await catalogue.reload());
    announce(null, "catalogue");
  }
  /** Reports a reload's problems and unloads plugin versions that are no longer active. */
  async function settle(problems: readonly CatalogueProblem[]): Promise<void> {
    // A lifecycle change may have removed enablement rows through another path (the installer).
    agentStates.invalidate();
    for (const problem of problems) {
      report("catalogue", new AirlockError(problem.code, problem.message));
      await audit({
        agent: null,
        plugin: problem.namespace,
        tool: null,
        conversationId: null,
        kind: "admin",
        action: "catalogue.problem",
        allowed: false,
        success: false,
        error: problem.code,
        durationMs: null,
        details: { message: problem.message },
      });
    }
    // Idle sessions toward remote servers no longer installed are closed (remote/session-pool.ts).
    await remoteContext.retainSessions(new Set(catalogue.plugins().keys()));
    try {
      await loader.retain(new Set([...catalogue.plugins().values()].map(pluginKey)));
    } catch (error) {
      // An isolate that fails to unload is not worth failing the operation that changed the catalogue.
      report("unloading inactive plugin versions", error);
    }
  }
  await refreshCatalogue();

  const admin = createAdminAudit(audit);
  const snippetSkillsOf = withSnippetSkills(store);
  const lifecycle = auditedLifecycle(parts.lifecycle, admin, refreshCatalogue);
  const plugins: PluginLifecycle = {
    ...lifecycle,
    list: async () => (await lifecycle.list()).map((p) => ({ ...p, worker: tiers.view(p.namespace) })),
  };
  const remote = createRemoteServers(remoteContext, admin);

  const assertOpen = () => {
    if (closed) {
      throw new AirlockError("AIRLOCK_HOST_CLOSED", "the host is closed", {
        status: PIPELINE_ERRORS.AIRLOCK_HOST_CLOSED.status,
      });
    }
  };
  /** Another replica (or process) may have changed the active versions: pick that up first. */
  const fresh = async () => {
    const problems = await catalogue.sync();
    if (problems !== null) {
      await settle(problems);
      changed(null, "catalogue");
    }
  };
  const begin = async (run: RunOptions) => {
    assertOpen();
    await fresh();
    const hostTools = async (agent: string, options: RunOptions, served: readonly ModelTool[]) => [
      ...(await skillHostTools({ store, catalogue }, agent, options)),
      ...(await codeMode.hostTools(agent, served)),
    ];
    return startRun(deps, run, { replica: membership.replica, hostTools });
  };
  const callTool: AirlockHost["callTool"] = async (agent, toolName, input, callOptions) => {
    const {
      tools,
      groups,
      harness,
      autoApprove,
      conversationId,
      agent: _ignored,
      ...call
    } = callOptions ?? ({ agent } as const);
    const run = await begin({
      agent,
      ...(tools === undefined ? {} : { tools }),
      ...(groups === undefined ? {} : { groups }),
      ...(harness === undefined ? {} : { harness }),
      ...(autoApprove === undefined ? {} : { autoApprove }),
      ...(conversationId === undefined ? {} : { conversationId }),
    });
    return run.call(toolName, input, call);
  };
  const tasks = openHostTasks({
    options,
    store,
    replica: membership.replica,
    call: callTool,
    report,
    // A task that ended here is told to this replica's MCP streams and announced to the others'.
    onStatus: (agent, taskId) => {
      events.emit("task.status", { agent, taskId });
      membership.announce({ kind: "task", agent, id: taskId });
    },
  });

  return {
    version: options.hostVersion,
    store,
    plugins,
    remote,
    tasks,

    async createAgent(slug) {
      if (typeof slug !== "string" || !AGENT_SLUG.test(slug)) {
        throw catalogueError("AIRLOCK_AGENT_INVALID_SLUG", `invalid agent slug ${JSON.stringify(slug)}`);
      }
      return audited(admin, "agent.create", { agent: slug }, () => store.ensureAgent(slug));
    },
    getAgent: (slug) => store.getAgent(slug),
    setPluginWorker: (namespace, tier) =>
      audited(admin, "plugin.worker", { plugin: namespace, details: { tier } }, () =>
        tiers.set(namespace, tier),
      ),
    listAgents: () => store.listAgents(),
    async setKnowledgeLevel(slug, level: AgentKnowledgeLevel) {
      if (!LEVELS.has(level)) {
        throw catalogueError(
          "AIRLOCK_AGENT_INVALID_LEVEL",
          `unknown knowledge level ${JSON.stringify(level)}`,
        );
      }
      await requireAgent(store, slug);
      await audited(admin, "agent.knowledge_level", { agent: slug, details: { level } }, () =>
        store.setKnowledgeLevel(slug, level),
      );
      membership.announce({ kind: "level", agent: slug });
    },
    async issueToken(role, agent, label) {
      const input = {
        role,
        ...(agent === undefined ? {} : { agent }),
        ...(label === undefined ? {} : { label }),
      };
      const fields = { agent: agent ?? null, details: { role } };
      const issued = await issueToken(store, input).catch(async (error: unknown) => {
        await admin("token.issue", fields, error);
        throw error;
      });
      await admin("token.issue", { ...fields, details: { role, id: issued.id } });
      return { id: issued.id, token: issued.token };
    },
    authenticate: (token) => authenticate(store, token),

    async listTools() {
      await fresh();
      return catalogue.tools().map(toCatalogueTool);
    },
    async listAgentTools(agent) {
      await fresh();
      return listAgentTools(store, catalogue, agent);
    },
    async setToolsEnabled(agent, changes) {
      await fresh();
      const view = await audited(
        admin,
        "tools.set_enabled",
        { agent, details: { changes: { ...changes } } },
        () => setToolsEnabled(store, catalogue, agent, changes),
      );
      announce(agent, "enablement");
      return view;
    },
    async listSkills(agent) {
      await fresh();
      await requireAgent(store, agent);
      return snippetSkillsOf.list(agent, await listSkills(store, catalogue, agent));
    },
    async setSkillsEnabled(agent, changes) {
      await fresh();
      await requireAgent(store, agent);
      const view = await audited(
        admin,
        "skills.set_enabled",
        { agent, details: { changes: { ...changes } } },
        () => setSkillsEnabled(store, catalogue, agent, changes),
      );
      announce(agent, "enablement");
      return view;
    },
    async readSkill(agent, id) {
      await fresh();
      await requireAgent(store, agent);
      return snippetSkillsOf.read(agent, id, () => readSkill(store, catalogue, agent, id));
    },
    async getToolPresentations() {
      await fresh();
      const all = [...catalogue.tools(), ...catalogue.harnessGroups().flatMap((g) => catalogue.harness(g))];
      const out: Record<string, Presentation> = {};
      for (const entry of all) if (entry.tool.presentation) out[entry.id] = { ...entry.tool.presentation };
      return out;
    },

    async listSecrets(agent) {
      await fresh();
      return listSecrets(store, catalogue, parts.codec, agent);
    },
    async setSecrets(agent, values) {
      await fresh();
      const keys = Object.keys(values ?? {});
      const view = await audited(admin, "secrets.set", { agent, details: { keys } }, () =>
        setSecrets(store, catalogue, parts.codec, agent, values),
      );
      announce(agent, "secrets");
      return view;
    },
    async deleteSecret(agent, key) {
      const deleted = await audited(admin, "secrets.delete", { agent, details: { key } }, () =>
        deleteSecret(store, agent, key),
      );
      if (deleted) announce(agent, "secrets");
      return deleted;
    },

    snippets: createSnippetsAdmin({
      store,
      admin,
      settings: (agent) => codeMode.settings(agent),
      announce: (agent) => announce(agent, "enablement"),
    }),
    async getCodeMode(agent) {
      await requireAgent(store, agent);
      return codeMode.settings(agent);
    },
    async setCodeMode(agent, change) {
      await requireAgent(store, agent);
      const settings = await audited(
        admin,
        "agent.code_mode",
        { agent, details: { change: { ...change } } },
        () => codeMode.configure(agent, change),
      );
      announce(agent, "enablement");
      return settings;
    },
    startRun: begin,
    callTool,
    beforeToolCall: (hook) => hooks.addBefore(hook),
    afterToolCall: (hook) => hooks.addAfter(hook),
    listApprovals: (agent) => approvals.list(agent),
    async decideApproval(id, decision) {
      const fields = {
        agent: null,
        details: {
          approvalId: id,
          toolName: null,
          approve: decision.approve === true,
          by: "operator",
          via: decision.via ?? "admin API",
        },
      };
      const { via: _via, ...settled } = decision;
      const decided = await approvals.decide(id, settled).catch(async (error: unknown) => {
        await admin("approval.decide", fields, error);
        throw error;
      });
      await admin("approval.decide", {
        agent: decided.agent,
        details: { ...fields.details, toolName: decided.toolName },
      });
    },
    async getPeoplePolicy(agent) {
      await requireAgent(store, agent);
      return readPolicy(store, agent);
    },
    async setPeoplePolicy(agent, patch) {
      const checked = checkPatch(patch);
      await requireAgent(store, agent);
      const policy = await audited(admin, "people.policy", { agent, details: { ...checked } }, () =>
        writePolicy(store, agent, checked),
      );
      // Askable secrets change what the agent is served (a tool missing only those is listed).
      if (checked.askSecrets !== undefined) announce(agent, "secrets");
      return policy;
    },
    on: (type, listener) => events.on(type, listener),
    replica: membership.replica,
    subscribeEvents: (types, listener) => membership.events.subscribe(types, listener),
    stats: () => ({ sandbox: sandbox.stats(), streams: membership.events.streams() }),

    queryAudit: (query) => store.queryAudit(query),
    oauth: parts.brokered.oauth,
    models: parts.brokered.models,
    seal: (purpose, value) => parts.codec.encrypt(JSON.stringify({ p: purpose, v: value })),
    unseal(purpose, sealed) {
      let opened: { p?: unknown; v?: unknown };
      try {
        opened = JSON.parse(parts.codec.decrypt(sealed)) as { p?: unknown; v?: unknown };
      } catch {
        return null; // not sealed by this key (or altered): the caller treats it as unknown
      }
      return opened !== null && typeof opened === "object" && opened.p === purpose
        ? (opened.v ?? null)
        : null;
    },
    close() {
      closing ??= (async () => {
        await tasks.close(); // before `closed`: the calls it aborts settle through the pipeline
        closed = true;
        await approvals.denyAll("the host is shutting down");
        await membership.close().catch((error: unknown) => report("leaving the cluster", error));
        await sandbox.close();
        await remoteContext.close();
        await codeMode.close().catch((error: unknown) => report("closing the code-mode sandbox", error));
        await parts.closeExtras?.();
        if (parts.ownsStore) await store.close();
      })();
      return closing;
    },
  };
}

/** The lifecycle as the host exposes it: every call audited, the catalogue reloaded after it. */
function auditedLifecycle(
  lifecycle: PluginLifecycle,
  admin: AdminAudit,
  refresh: () => Promise<void>,
): PluginLifecycle {
  const wrap = async <T>(
    action: string,
    plugin: string | null,
    details: Record<string, unknown>,
    run: () => Promise<T>,
  ) => {
    try {
      return await audited(admin, action, { plugin, details }, run);
    } finally {
      await refresh();
    }
  };
  return {
    registryUrl: lifecycle.registryUrl,
    install: (spec, opts) => wrap("plugin.install", null, { spec }, () => lifecycle.install(spec, opts)),
    installTarball: (bytes, source, opts) =>
      wrap("plugin.install", null, { source }, () => lifecycle.installTarball(bytes, source, opts)),
    upgrade: (namespace, range, opts) =>
      wrap("plugin.upgrade", namespace, { range: range ?? null }, () =>
        lifecycle.upgrade(namespace, range, opts),
      ),
    rollback: (namespace) => wrap("plugin.rollback", namespace, {}, () => lifecycle.rollback(namespace)),
    uninstall: (namespace, opts) =>
      wrap("plugin.uninstall", namespace, { purge: opts?.purge === true }, () =>
        lifecycle.uninstall(namespace, opts),
      ),
    list: () => lifecycle.list(),
  };
}
