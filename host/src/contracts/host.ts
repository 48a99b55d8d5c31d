// The library API of a running host (`createHost(options)` in host/src/host.ts returns it).
// Every surface (HTTP admin API, MCP server, CLI) is a thin layer over this interface: a
// surface never reaches the store or the sandbox by itself for something this API offers.
// Invariants: operations validate their input and throw AirlockError with a stable code;
// a tool failure is a ToolCallOutcome with isError, never a thrown error.

import type { Attachment, ConversationMessage, KnowledgeLevel, ToolResult } from "@airlock/sdk";
import type { JsonSchema, Presentation, SecretSpec, ToolAnnotations } from "@airlock/sdk/manifest";
import type { CodeModeChange, CodeModeSettings } from "../engine/code-mode/settings.ts";
import type { HostSnippets } from "../engine/code-mode/snippets-admin.ts";
import type { ModelsAdmin, OAuthAdmin } from "../engine/oauth/admin.ts";
import type { TraceParent } from "../engine/observability/spans.ts";
import type { PolicyPatch } from "../engine/people/policy.ts";
import type { PeopleChannel, PeoplePolicy } from "../engine/people/types.ts";
import type { RemoteServers } from "../engine/remote/types.ts";
import type { SkillDocument, SkillView } from "../engine/skills/skills.ts";
import type { HostTasks } from "../engine/tasks/types.ts";
import type { CallNotification } from "../isolation/bridge/types.ts";
import type { SandboxStats } from "../isolation/sandbox/types.ts";
import type { StreamEventType, StreamListener } from "../state/cluster/events.ts";
import type {
  AgentKnowledgeLevel,
  AgentRecord,
  AuditQuery,
  AuditRecord,
  TokenRecord,
} from "../state/store/types.ts";
import type {
  AgentRemoval,
  AuthServerStore,
  ConversationSettings,
  FormTokens,
  InstalledVersion,
  SurfaceAuditEntry,
  TokenView,
} from "./admin-ops.ts";

/** A tool as the catalogue lists it (GET /api/tools). Harness tools are never listed. */
export interface CatalogueTool {
  id: `${string}:${string}`;
  namespace: string;
  name: string;
  version: string;
  description: string;
  category: string;
  requiredSecrets: SecretSpec[];
  annotations: ToolAnnotations;
  inputSchema: JsonSchema;
}

/** A tool as one agent sees it: enabled or not, and why it is not served when it is not. */
export interface AgentToolView extends CatalogueTool {
  enabled: boolean;
  /** Required (non-optional) secrets the agent has not set. */
  missingSecrets: string[];
  /** enabled and nothing missing. */
  served: boolean;
}

/** A secret as read back: sensitive values masked, readable ones in clear. */
export interface SecretView {
  key: string;
  set: boolean;
  sensitive: boolean;
  /** The value for readable secrets; a mask ("••••" + last 2 chars at most) for sensitive ones. */
  value: string | null;
  /** Tools (ids) that declare this key. */
  tools: string[];
}

/** A tool as handed to a model for one run: presentation stripped. */
export interface ModelTool {
  id: `${string}:${string}`;
  /** `<namespace>__<tool>` */
  wireName: string;
  description: string;
  inputSchema: JsonSchema;
  outputSchema?: JsonSchema;
  annotations: ToolAnnotations;
  /** The tool declared it may run long: MCP clients may run it as a task (host/src/engine/tasks/). */
  longRunning?: true;
}

export interface BeforeToolCallContext {
  agent: string;
  runId: string;
  toolName: string;
  input: Record<string, unknown>;
}
export type BeforeToolCallResult =
  | undefined
  | { block: true; reason: string }
  | { input: Record<string, unknown> };
export type BeforeToolCallHook = (
  ctx: BeforeToolCallContext,
) => BeforeToolCallResult | Promise<BeforeToolCallResult>;

export interface AfterToolCallContext {
  agent: string;
  runId: string;
  toolName: string;
  input: Record<string, unknown>;
  result?: ToolResult;
  error?: { code: string; message: string };
  blocked: boolean;
  durationMs: number;
}
export type AfterToolCallHook = (ctx: AfterToolCallContext) => void | Promise<void>;

export interface HostEventMap {
  "tool.started": {
    runId: string;
    callId: string;
    agent: string;
    toolName: string;
    presentation?: Presentation;
  };
  "tool.completed": {
    runId: string;
    callId: string;
    agent: string;
    toolName: string;
    presentation?: Presentation;
    isError: boolean;
    durationMs: number;
  };
  "tool.failed": {
    runId: string;
    callId: string;
    agent: string;
    toolName: string;
    presentation?: Presentation;
    error: { code: string; message: string };
    blocked: boolean;
    durationMs: number;
  };
  "permission.required": {
    approvalId: string;
    runId: string;
    agent: string;
    toolName: string;
    presentation?: Presentation;
    input: Record<string, unknown>;
  };
  /** A plugin's isolate aborted a shared sandbox worker; it now runs in a worker of its own. */
  "plugin.quarantined": {
    namespace: string;
    pluginKey: string;
    worker: number;
    signal: string;
  };
  "tool.progress": {
    runId: string;
    callId: string;
    agent: string;
    toolName: string;
    notification: CallNotification;
  };
  /**
   * What an agent may be served changed: `agent` is the agent concerned, or null for every agent
   * (a plugin lifecycle change, or a catalogue change another replica made). MCP servers turn it
   * into their list-change notification; listeners re-read, the event carries no tool list.
   */
  "tools.changed": { agent: string | null; reason: ToolsChangeReason };
  /** The bridge refused a capability call of plugin code (metrics: refusals by capability). */
  "capability.refused": { capability: string; code: string };
  /**
   * A task of `agent` ended (completed, failed, cancelled), on this replica or — announced over
   * the cluster — on another. MCP servers send the 2025-11-25 `notifications/tasks/status`.
   */
  "task.status": { agent: string; taskId: string };
}
export type ToolsChangeReason = "enablement" | "secrets" | "catalogue";
export type HostEventType = keyof HostEventMap;

export interface RunOptions {
  agent: string;
  conversationId?: string;
  /** Restrict the run to these tool ids (`ns:tool`) and/or categories/presentation groups. */
  tools?: string[];
  groups?: string[];
  /** Harness groups whose tools are injected into this run. */
  harness?: string[];
  /** Run tools that are not read-only without waiting for an approval. */
  autoApprove?: boolean;
}

export interface CallOptions {
  conversation?: ConversationMessage[];
  attachments?: Attachment[];
  signal?: AbortSignal;
  onNotification?: (n: CallNotification) => void;
  /** The caller's W3C trace context (a `traceparent` header, or an MCP request's `_meta`): the call's span continues it. */
  trace?: { traceparent: string; tracestate?: string };
  /** Set by code mode: the run_code call this call was made from (its audit entry names it). */
  parentCallId?: string;
  /**
   * The end user of the agent this call is made for (MCP `_meta["airlock/subject"]`, the calls
   * route's `subject`): ctx.oauth and ctx.fetch's `oauth` use that user's connection of the
   * agent instead of the agent's own. 1–128 of `A–Z a–z 0–9 . _ @ + : -` (oauth/subject.ts);
   * anything else is refused with AIRLOCK_TOOL_SUBJECT_INVALID. Unset or "": the agent itself.
   */
  subject?: string;
  /** How a person at the caller takes part: approvals, ctx.elicit, missing secrets (people/types.ts). */
  people?: PeopleChannel;
  /**
   * The call's own wall limit (ms), in place of the plugin's `wallMs`: a task call runs under the
   * tool's operator-set task ceiling (tasks/service.ts). A positive integer.
   */
  wallMs?: number;
  /**
   * The OpenTelemetry context of the call's own span, parent of its sandbox and capability spans
   * (observability/spans.ts). Set by the host's tracing while that span records; leave it unset.
   */
  traceContext?: TraceParent;
}

/** What a tool call produced, as it goes back to the model. */
export interface ToolCallOutcome {
  callId: string;
  toolName: string;
  result: ToolResult;
  /**
   * Set whenever the result is an error: the stable code (AIRLOCK_...) of why the call did not run
   * or failed, or AIRLOCK_TOOL_REPORTED_ERROR when the tool itself answered with an error result.
   */
  errorCode?: string;
  blocked: boolean;
  durationMs: number;
}

export interface Run {
  readonly id: string;
  readonly agent: string;
  readonly conversationId: string;
  /** The catalogue snapshot taken at run start, as the model sees it. */
  tools(): ModelTool[];
  call(toolName: string, input: unknown, options?: CallOptions): Promise<ToolCallOutcome>;
}

export interface PendingApproval {
  id: string;
  runId: string;
  agent: string;
  toolName: string;
  input: Record<string, unknown>;
  requestedAt: string;
}

export interface InstallOptions {
  /** Allow an unsigned package or an unknown signer from this source (operator decision). */
  allowUnsigned?: boolean;
  /** Allow a version lower than the active one, or of the same precedence (operator decision). */
  allowDowngrade?: boolean;
  /** Allow a prerelease version that no range asked for (a file, a tarball, a `latest` tag). */
  allowPrerelease?: boolean;
  /** Signatures of the tarball's integrity (installTarball only; registry installs take them from the packument). */
  signatures?: Array<{ keyid: string; sig: string }>;
  /**
   * Ed25519 public keys (PEM) the operator trusts for this operation (`--trust-key`). The key
   * that signed what is installed is remembered for its namespace, so upgrades need no flag.
   */
  trustKeys?: string[];
}

export interface InstallReport {
  namespace: string;
  version: string;
  previous: string | null;
  tools: string[];
  signer: string | null;
}

export interface UninstallReport {
  namespace: string;
  removedVersions: string[];
  disabledForAgents: number;
  kept: { knowledgeDocuments: number; secrets: string[] };
  purged: { knowledgeDocuments: number; secrets: string[] } | null;
}

/** A plugin's sandbox worker tier: a worker of its own, or the shared pool. */
export type WorkerTier = "own" | "shared";

export interface WorkerTierView {
  tier: WorkerTier;
  /** Why it is alone: an operator's choice, or a quarantine after it aborted a shared worker. */
  reason: "operator" | "quarantine" | null;
  since: string | null;
  /** A quarantine's version, worker index and signal. */
  details: Record<string, unknown> | null;
}

export interface InstalledPluginView {
  namespace: string;
  active: string;
  previous: string | null;
  versions: string[];
  tools: string[];
  signer: string | null;
  source: string;
  /** Its sandbox worker tier (the host fills it in; the installer's own listing leaves it out). */
  worker?: WorkerTierView;
}

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
  /** One-shot: starts a run for the agent and calls one tool in it. */
  callTool(
    agent: string,
    toolName: string,
    input: unknown,
    options?: CallOptions & RunOptions,
  ): Promise<ToolCallOutcome>;
  beforeToolCall(hook: BeforeToolCallHook): () => void;
  afterToolCall(hook: AfterToolCallHook): () => void;
  /** Pending approvals of every replica sharing the store, oldest first. */
  listApprovals(agent?: string): Promise<PendingApproval[]>;
  /** Decides an approval requested on any replica; AIRLOCK_APPROVAL_NOT_FOUND when unknown or settled. */
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
  /** The host pages' single-use CSRF form tokens (any replica takes one minted on another). */
  readonly formTokens: FormTokens;
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
