// Runs and tool calls as the host's API offers them: a run is a catalogue snapshot for one
// agent and conversation, a call goes through the host's pipeline and comes back as a
// ToolCallOutcome; hooks see every call before and after it runs.
// Invariants: a tool failure is a ToolCallOutcome with an error result and `errorCode`, never a
// thrown error; a before-hook may block (its reason becomes the result) or rewrite the input;
// plain data only crosses these types, except the caller's signal, channels and trace context.
import type { Attachment, ConversationMessage, ToolResult } from "@airlock/sdk";
import type { JsonSchema, ToolAnnotations } from "@airlock/sdk/manifest";
import type { PeopleChannel } from "./people.ts";
import type { EffectiveGrants } from "./tools.ts";

/** A notification a tool sends to its caller while it runs (MCP progress / logging). */
export type CallNotification =
  | { type: "progress"; progress: number; total?: number; message?: string }
  | { type: "log"; level: "debug" | "info" | "warning" | "error"; message: string };

/**
 * An OpenTelemetry context (the `Context` of @opentelemetry/api, declared here by its shape so the
 * contract needs no tracing package): the parent of a call's sandbox and capability spans.
 */
export interface TraceParent {
  getValue(key: symbol): unknown;
  setValue(key: symbol, value: unknown): TraceParent;
  deleteValue(key: symbol): TraceParent;
}

/** A tool as handed to a model for one run: presentation stripped. */
export interface ModelTool {
  id: `${string}:${string}`;
  /** `<namespace>__<tool>` */
  wireName: string;
  description: string;
  inputSchema: JsonSchema;
  outputSchema?: JsonSchema;
  /** Derived from the tool's grants when it declares them (engine/catalogue/served-tool.ts), else the author's. */
  annotations: ToolAnnotations;
  /** The tool's effective grants (`_meta["airlock/grants"]` on MCP); absent in the legacy mode. */
  grants?: EffectiveGrants;
  /** The tool declared it may run long: MCP clients may run it as a task (host/src/engine/tasks/). */
  longRunning?: true;
  /**
   * MCP Apps (`_meta.ui`): the `ui://<namespace>/<name>` resource that renders the tool's results,
   * and who may call it (absent: model and app).
   */
  ui?: { resourceUri?: string; visibility?: Array<"model" | "app"> };
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
  /** How a person at the caller takes part: approvals, ctx.elicit, missing secrets (contracts/people.ts). */
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
