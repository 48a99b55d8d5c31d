// What the invocation pipeline needs from the rest of the host, as narrow interfaces. host.ts
// builds these from the real store, catalogue, sandbox and bridge; nothing here is a second
// implementation of them.

import type { ConversationMessage, KnowledgeLevel } from "@airlock/sdk";
import type { ToolManifest } from "@airlock/sdk/manifest";
import type {
  BridgeDispatch,
  CallGrant,
  CallNotification,
  ElicitChannel,
  OpenUrlChannel,
} from "../../isolation/bridge/types.ts";
import type { EffectiveLimits, Sandbox } from "../../isolation/sandbox/types.ts";
import type { ApprovalRegistry } from "../../state/cluster/approval-registry.ts";
import type { AuditInput, InstalledPluginRecord, Store } from "../../state/store/types.ts";
import type { Catalogue } from "../catalogue/catalogue.ts";
import type { TraceParent } from "../observability/spans.ts";
import type { RemoteExecutor } from "../remote/execute.ts";
import type { AgentStateCache } from "./agent-states.ts";
import type { EventBus } from "./events.ts";
import type { HookRegistry } from "./hooks.ts";
import type { SchemaValidator } from "./schema-validation.ts";

export interface GrantRequest {
  callId: string;
  agent: string;
  conversationId: string;
  /** The end user the call is for ("" = the agent itself; CallOptions.subject, checked). */
  subject: string;
  plugin: InstalledPluginRecord;
  tool: ToolManifest;
  knowledgeLevel: KnowledgeLevel | null;
  conversation: readonly ConversationMessage[];
  limits: EffectiveLimits;
  /** Aborted when the call ends (completion, deadline, cancellation). */
  signal: AbortSignal;
  /** The controller of `signal`: the grant may use it as its own (bridge GrantInput.controller). */
  controller?: AbortController;
  notify: (n: CallNotification) => void;
  /** ctx.elicit's way to the caller, when the caller can ask. */
  elicit?: ElicitChannel;
  /** A capability's way to send the person to a host page, when the caller can. */
  openUrl?: OpenUrlChannel;
  /** The bridge ended the call itself (the capability-call cap), with this reason. */
  end?: (reason: Error & { code: string }) => void;
  /** The call's span context: each capability call gets a child span (observability/spans.ts). */
  trace?: TraceParent;
}

/** Issues and revokes CallGrants; `dispatch` is what the sandbox calls for every ctx method. */
export interface GrantIssuer {
  issue(request: GrantRequest): CallGrant;
  revoke(token: string): void;
  readonly dispatch: BridgeDispatch;
}

/** Loads plugin versions into the sandbox on first use (verifying the bundle's integrity). */
export interface PluginLoader {
  /** Limits in force for a plugin version (operator ceilings ∧ manifest request). */
  limitsFor(plugin: InstalledPluginRecord): EffectiveLimits;
  /** Loads the version if it is not loaded; returns its sandbox key. Rejects with an AirlockError. */
  ensure(plugin: InstalledPluginRecord): Promise<string>;
  /** Unloads loaded versions that are not in `keep` (`namespace@version`). */
  retain(keep: ReadonlySet<string>): Promise<void>;
  /** Loads the loaded versions of `namespace` again (its worker tier changed). */
  reload(namespace: string): Promise<void>;
}

export interface PipelineDeps {
  store: Store;
  catalogue: Catalogue;
  sandbox: Sandbox;
  grants: GrantIssuer;
  loader: PluginLoader;
  hooks: HookRegistry;
  approvals: ApprovalRegistry;
  events: EventBus;
  validator: SchemaValidator;
  /** Agent record, enablement and secret presence per agent (run start reads fresh; calls may be cached). */
  agentStates: AgentStateCache;
  /** Host-wide auto-approval (operator option). */
  autoApprove: boolean;
  /** Appends an audit entry; never rejects (failures are reported by the host). */
  audit(entry: AuditInput): Promise<void>;
  /**
   * Appends a call's own audit row and resolves once it is durable (journaled or committed);
   * rejects when it could not be (the audit stage then withholds the call's result: fail closed).
   */
  auditDurable(entry: AuditInput): Promise<void>;
  /** Remote MCP servers installed as plugins: their run-start screening and their calls (host/src/engine/remote/). */
  remote?: RemoteExecutor;
  /** True once the host is closing: calls are answered with AIRLOCK_HOST_CLOSED. */
  closed(): boolean;
  /**
   * Aborted, with an AIRLOCK_HOST_CLOSED error as its reason, when the host stops the calls it
   * runs (AirlockHost.stopCalls: a drain's grace is over); a call running in a sandbox then ends
   * with that code.
   */
  stopping?: AbortSignal;
  /** Reports an internal failure that must not fail a call (audit write, after-hook, listener). */
  report(what: string, error: unknown): void;
}
