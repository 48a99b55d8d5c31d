// Contracts of the capability-checked bridge: the one choke point between plugin code and
// the host. Every ctx method call from a sandbox arrives as `{token, capability, method, args}`;
// the bridge resolves the token to the CallGrant it issued for that call, checks it, runs the
// capability's handler and audits the outcome (allowed or denied).
// Invariants: a grant is created only by the host for one tool call and revoked when the
// call ends; handlers receive the grant (never anything the sandbox claims about itself) and
// plain copied data; they throw AirlockError with a stable code to refuse.
import type {
  ConversationMessage,
  ElicitRequest,
  ElicitResult,
  KnowledgeLevel,
  ToolResult,
  ToolUses,
} from "@airlock/sdk";
import type { EgressRule, PluginManifest } from "@airlock/sdk/manifest";
import type { UrlOutcome, UrlQuestion } from "../../contracts/people.ts";
import type { CallNotification } from "../../contracts/runs.ts";

export type { CallNotification, UrlOutcome, UrlQuestion };

/** What the host issued for one tool call. Immutable but for the counters. */
export interface CallGrant {
  readonly callId: string;
  /** Unguessable (≥128 bits), bound to this call only. */
  readonly token: string;
  readonly agent: string;
  readonly conversationId: string;
  /** The end user of the agent the call is for, "" for the agent itself (ctx.oauth's connection). */
  readonly subject: string;
  readonly namespace: string;
  readonly pluginVersion: string;
  readonly tool: string;
  /** `<namespace>:<tool>` */
  readonly toolId: `${string}:${string}`;
  readonly manifest: PluginManifest;
  /** Secret keys the tool declared: its requiredSecrets, plus `uses.secrets` when it declares uses. */
  readonly declaredSecrets: ReadonlySet<string>;
  /** The tool's per-tool grants (tool-uses.ts), checked on every dispatch; null: the legacy mode. */
  readonly uses: ToolUses | null;
  /** The agent's knowledge level at call start; null means ctx.knowledge is absent. */
  readonly knowledgeLevel: KnowledgeLevel | null;
  /** Egress rules in force: the manifest's, narrowed by what the operator allows (and to the tool's declared fetch hosts). */
  readonly egress: readonly EgressRule[];
  readonly conversation: readonly ConversationMessage[];
  /** Aborted when the call ends (completion, deadline, cancellation). */
  readonly signal: AbortSignal;
  /** Capability calls still allowed in this tool call. */
  capabilityCallsLeft: number;
  /**
   * The most bytes of data one capability may copy into the call's isolate (a response body,
   * say): a share of the plugin's memory limit, so a copy can never exhaust it. Unset: no bound
   * beyond each capability's own caps.
   */
  readonly maxInboundBytes?: number;
  /** Delivers progress and log notifications to whoever made the call. */
  readonly notify: (n: CallNotification) => void;
  /** Asks the person at the caller (ctx.elicit); absent when the caller cannot ask. */
  readonly elicit?: ElicitChannel;
  /** Sends the person at the caller to a host page (URL-mode elicitation); absent when the caller cannot. */
  readonly openUrl?: OpenUrlChannel;
}

/** How a capability sends the person to a host page and waits until it served its purpose. */
export type OpenUrlChannel = (question: UrlQuestion, signal: AbortSignal) => Promise<UrlOutcome>;

/** How ctx.elicit reaches the caller: a checked form in, the person's answer out. */
export type ElicitChannel = (request: ElicitRequest, signal: AbortSignal) => Promise<ElicitResult>;

/** One method of a capability. `args` is untrusted plain data from plugin code: validate it. */
export type CapabilityMethod = (grant: CallGrant, args: readonly unknown[]) => Promise<unknown>;

/** A named group of methods exposed on ctx (`ctx.<name>.<method>`). */
export interface Capability {
  readonly name: string;
  readonly methods: Readonly<Record<string, CapabilityMethod>>;
  /**
   * Whether a method call is worth its own audit entry (default true). Handlers that audit
   * themselves in more detail (knowledge writes, fetch) return false to avoid doubles.
   */
  readonly auditedByBridge?: (method: string) => boolean;
}

/** How a sandbox reaches the host: the only function it is handed. */
export interface BridgeDispatch {
  (token: string, capability: string, method: string, args: unknown[]): Promise<unknown>;
  /**
   * Tells the bridge of `count` capability calls of the call of `token` that the sandbox refused
   * with `code` before they reached `dispatch` (its fair-use meter: the cap, calls or bytes
   * waiting); the bridge audits them as that call's denials. Never throws.
   */
  refusedBefore?: (token: string, capability: string, method: string, code: string, count: number) => void;
}

/** The wire form of a bridge failure, as it crosses into the sandbox. */
export interface BridgeErrorWire {
  code: string;
  message: string;
}

export type { ToolResult };
