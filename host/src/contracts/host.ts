// The library API of a running host (`createHost(options)` in host/src/host.ts returns it).
// Every surface (HTTP admin API, MCP server, CLI) is a thin layer over this interface: a
// surface never reaches the store or the sandbox by itself for something this API offers.
// Invariants: operations validate their input and throw AirlockError with a stable code;
// a tool failure is a ToolCallOutcome with isError, never a thrown error.
// The types the interface names live in the other contract files beside this one (runs, events,
// people, tools, plugins, records, remote, tasks, code-mode, oauth); this file re-exports the
// names it always exported, so importers of contracts/host.ts need no change.

import type { KnowledgeLevel } from "@airlock/sdk";
import type { Presentation } from "@airlock/sdk/manifest";
import type {
  AgentRemoval,
  AuthServerStore,
  ConversationSettings,
  InstalledVersion,
  SurfaceAuditEntry,
  TokenView,
} from "./admin-ops.ts";
import type { CodeModeChange, CodeModeSettings, HostSnippets } from "./code-mode.ts";
import type { HostEventMap, HostEventType, StreamEventType, StreamListener } from "./events.ts";
import type { ModelsAdmin, OAuthAdmin } from "./oauth.ts";
import type { PendingApproval, PeoplePolicy, PolicyPatch } from "./people.ts";
import type {
  InstalledPluginView,
  InstallOptions,
  InstallReport,
  RegistryBrowser,
  SandboxStats,
  TrustedKeyView,
  UninstallReport,
  WorkerTier,
  WorkerTierView,
} from "./plugins.ts";
import type { AgentKnowledgeLevel, AgentRecord, AuditQuery, AuditRecord, TokenRecord } from "./records.ts";
import type { RemoteServers } from "./remote.ts";
import type {
  AfterToolCallHook,
  BeforeToolCallHook,
  CallOptions,
  Run,
  RunOptions,
  ToolCallOutcome,
} from "./runs.ts";
import type { HostTasks } from "./tasks.ts";
import type {
  AgentToolView,
  CatalogueTool,
  SecretView,
  SkillDocument,
  SkillView,
  UiResourceDocument,
  UiResourceView,
} from "./tools.ts";

export type { HostEventMap, HostEventType, ToolsChangeReason } from "./events.ts";
export type { PendingApproval } from "./people.ts";
export type {
  InstalledPluginView,
  InstallOptions,
  InstallReport,
  TrustedKeyView,
  UninstallReport,
  WorkerTier,
  WorkerTierView,
} from "./plugins.ts";
export type {
  AfterToolCallContext,
  AfterToolCallHook,
  BeforeToolCallContext,
  BeforeToolCallHook,
  BeforeToolCallResult,
  CallOptions,
  ModelTool,
  Run,
  RunOptions,
  ToolCallOutcome,
} from "./runs.ts";
export type { AgentToolView, CatalogueTool, SecretSpecView, SecretView } from "./tools.ts";

export interface PluginLifecycle {
  /** The registry `name@range` specs resolve against (`--registry`, AIRLOCK_REGISTRY_URL), or null. */
  readonly registryUrl: string | null;
  /** `name@range` from the configured registry, a registry URL, or a path to a .tgz. */
  install(spec: string, options?: InstallOptions): Promise<InstallReport>;
  installTarball(bytes: Uint8Array, source: string, options?: InstallOptions): Promise<InstallReport>;
  upgrade(namespace: string, range?: string, options?: InstallOptions): Promise<InstallReport>;
  rollback(namespace: string): Promise<InstallReport>;
  uninstall(namespace: string, options?: { purge?: boolean }): Promise<UninstallReport>;
  list(): Promise<InstalledPluginView[]>;
  /** The publisher keys each namespace trusts (all namespaces when none is named). */
  trustedKeys(namespace?: string): Promise<TrustedKeyView[]>;
  /**
   * Stops trusting a key for a namespace on every host of the store; its installed versions stay
   * installed, and a later install, upgrade or replica rebuild signed by it needs the key again.
   * AIRLOCK_INSTALL_KEY_NOT_TRUSTED when the namespace does not trust that key.
   */
  forgetTrustedKey(namespace: string, keyId: string): Promise<TrustedKeyView>;
  /** The registry, read-only, as the console browses it (nothing installed, nothing audited). */
  readonly registry: RegistryBrowser;
}

export interface AirlockHost {
  readonly version: string;
  readonly plugins: PluginLifecycle;
  /** Remote MCP servers installed as plugins (host/src/engine/remote/types.ts). */
  readonly remote: RemoteServers;
  /** Long-running calls run as tasks, kept in the store (tasks/types.ts; MCP tasks). */
  readonly tasks: HostTasks;

  // agents, levels, tokens
  createAgent(slug: string): Promise<AgentRecord>;
  getAgent(slug: string): Promise<AgentRecord | null>;
  listAgents(): Promise<AgentRecord[]>;
  setKnowledgeLevel(slug: string, level: AgentKnowledgeLevel): Promise<void>;
  issueToken(
    role: "operator" | "agent",
    agent?: string,
    label?: string,
  ): Promise<{ id: string; token: string }>;
  authenticate(token: string): Promise<TokenRecord | null>;
  /** Every token (or one agent's) as listed: never a value or a hash. */
  listTokens(agent?: string): Promise<TokenView[]>;
  /** Revokes a token (audited token.revoke); AIRLOCK_AUTH_TOKEN_NOT_FOUND when no token has this id. */
  revokeToken(id: string): Promise<TokenView>;
  /** What deleting the agent would remove: its tokens, enabled tools, secrets, documents, approvals. */
  previewAgentRemoval(slug: string): Promise<AgentRemoval>;
  /**
   * Deletes the agent with its tokens, enablement, secrets, conversation state, artifacts and
   * knowledge documents (audited agent.delete; `tools.changed` raised and announced to the
   * replicas); AIRLOCK_AGENT_NOT_FOUND when there is none. Answers what was removed.
   */
  deleteAgent(slug: string): Promise<AgentRemoval>;

  // catalogue and enablement
  listTools(): Promise<CatalogueTool[]>;
  listAgentTools(agent: string): Promise<AgentToolView[]>;
  setToolsEnabled(agent: string, changes: Record<string, boolean>): Promise<AgentToolView[]>;
  getToolPresentations(): Promise<Record<string, Presentation>>;

  // skills shipped by plugins (host/src/engine/skills/): one line each, the body on request
  listSkills(agent: string): Promise<SkillView[]>;
  setSkillsEnabled(agent: string, changes: Record<string, boolean>): Promise<SkillView[]>;
  /** The body of a skill the agent has enabled; AIRLOCK_SKILL_UNKNOWN otherwise. */
  readSkill(agent: string, id: string): Promise<SkillDocument>;

  // plugin UIs (MCP Apps, host/src/engine/apps/): the UIs the agent's enabled tools render in
  listUiResources(agent: string): Promise<UiResourceView[]>;
  /**
   * A UI's HTML for `ui://<namespace>/<name>`; AIRLOCK_UI_UNKNOWN (audited ui.read) when no
   * enabled tool of the agent names it, AIRLOCK_UI_INTEGRITY when its bytes differ from the manifest.
   */
  readUiResource(agent: string, uri: string): Promise<UiResourceDocument>;

  // secrets
  listSecrets(agent: string): Promise<SecretView[]>;
  setSecrets(agent: string, values: Record<string, string>): Promise<SecretView[]>;
  deleteSecret(agent: string, key: string): Promise<boolean>;

  /**
   * Gives a plugin a sandbox worker of its own (`own`) or puts it back in the shared pool
   * (`shared`, also ending a quarantine); workers sandbox only. Stored; loaded versions move now.
   */
  setPluginWorker(namespace: string, tier: WorkerTier): Promise<WorkerTierView>;
  /** One installed version of a plugin (`version` left out: the active one), or null. */
  getInstalledVersion(namespace: string, version?: string): Promise<InstalledVersion | null>;
  /** The active version of every installed plugin. */
  listActiveVersions(): Promise<InstalledVersion[]>;

  // runs, calls, hooks, approvals, events
  /** An agent's code mode: on or off, listing, limits (docs/code-mode.md). */
  getCodeMode(agent: string): Promise<CodeModeSettings>;
  /** Changes an agent's code mode (validated whole, audited as agent.code_mode). */
  setCodeMode(agent: string, change: CodeModeChange): Promise<CodeModeSettings>;
  /** An agent's saved run_code snippets: review, save, promote into a skill, delete (docs/code-mode.md). */
  readonly snippets: HostSnippets;
  startRun(options: RunOptions): Promise<Run>;
  /**
   * A hint from a front door that knows a call is coming (the MCP tools/call handler, once it has
   * found the tool, before the call's pipeline runs): the host may get that tool's sandbox ready (a
   * sleeping worker is woken, when HostOptions.sandbox.wakeSpinMs is set). Changes nothing else; an
   * unknown tool is ignored.
   */
  expectCall(agent: string, toolId: string, conversationId: string): void;
  /** One-shot: starts a run for the agent and calls one tool in it. */
  callTool(
    agent: string,
    toolName: string,
    input: unknown,
    options?: CallOptions & RunOptions,
  ): Promise<ToolCallOutcome>;
  beforeToolCall(hook: BeforeToolCallHook): () => void;
  afterToolCall(hook: AfterToolCallHook): () => void;
  /**
   * Ends the calls this host runs: each call still running in a sandbox ends with
   * AIRLOCK_HOST_CLOSED, each call waiting for an approval is denied ("the host is shutting
   * down"), and no new call starts (AIRLOCK_HOST_CLOSED). The HTTP server's drain calls it once
   * its grace is over, so every request still in flight is answered with a code; close() later
   * closes the rest. Idempotent.
   */
  stopCalls(): Promise<void>;
  /** Pending approvals of every replica sharing the store, oldest first. */
  listApprovals(agent?: string): Promise<PendingApproval[]>;
  /**
   * Decides an approval requested on any replica; audited either way. Refused with
   * AIRLOCK_APPROVAL_ALREADY_DECIDED (another decision came first), AIRLOCK_APPROVAL_CALL_GONE
   * (its call no longer waits: cancelled, timed out, its replica gone) or
   * AIRLOCK_APPROVAL_NOT_FOUND (unknown id).
   */
  decideApproval(
    id: string,
    decision: { approve: boolean; reason?: string; via?: "admin API" | "approval page" },
  ): Promise<void>;
  /** The agent's people-in-the-loop policy: who approves which tool, which missing secrets are askable. */
  getPeoplePolicy(agent: string): Promise<PeoplePolicy>;
  /** Changes it (fields left out keep their value); audited; AIRLOCK_POLICY_INVALID when malformed. */
  setPeoplePolicy(agent: string, patch: PolicyPatch): Promise<PeoplePolicy>;
  /** This process's events only (tools.changed included). */
  on<T extends HostEventType>(type: T, listener: (event: HostEventMap[T]) => void): () => void;
  /** This host's id among the replicas sharing its store. */
  readonly replica: string;
  /**
   * The event stream's events (tool.*, permission.required) of every replica sharing the store,
   * this one's included, each with the `replica` that served it. Returns the unsubscribe function.
   */
  subscribeEvents(types: readonly StreamEventType[], listener: StreamListener): () => void;
  /** What an operator watches on this replica (metrics): the sandbox's counters, open event streams. */
  stats(): { sandbox: SandboxStats; streams: number };

  queryAudit(query: AuditQuery): Promise<AuditRecord[]>;
  /** Writes an audit entry of something only a surface sees (a console sign-in, a refused page). */
  recordAudit(entry: SurfaceAuditEntry): Promise<void>;
  /** Small values a surface keeps per agent and conversation (an MCP session's log level). */
  readonly conversationSettings: ConversationSettings;
  /** The persistence of the host's own OAuth 2.1 authorization server (surfaces/http/authz/). */
  readonly authorization: AuthServerStore;

  /** OAuth connections the host brokers for plugins' declared providers (docs/oauth.md). */
  readonly oauth: OAuthAdmin;
  /** Model connections, their grants to agents' plugins and the usage against each budget (docs/oauth.md). */
  readonly models: ModelsAdmin;

  /**
   * Seals a small JSON value for `purpose` under the host's master key (encrypted and
   * authenticated, printable): what a stateless front end hands a client to bring back, e.g. an
   * MCP session id. Every replica sharing the master key opens what another sealed.
   */
  seal(purpose: string, value: unknown): string;
  /** The value sealed for `purpose`, or null for anything else (forged, altered, another purpose or key). */
  unseal(purpose: string, sealed: string): unknown;
  close(): Promise<void>;
}

export type { KnowledgeLevel };
