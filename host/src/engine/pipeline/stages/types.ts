// The shape of one tool call as it passes the stages (index.ts lists them), and of a stage.
// A stage is a small object: `enter` runs while the call goes on, in list order, and may end
// it with a Stop (the later stages' `enter` are skipped); `leave` runs once the call has ended,
// whatever its outcome, in reverse list order, for every stage the call reached (an onion:
// the stages that open something at the start, a span or tool.started, close it last).
// Invariants: `enter` never throws on an expected failure (it returns a Stop; the runner turns
// anything thrown into AIRLOCK_TOOL_FAILED); `leave` never throws and never changes the outcome.
import type { ToolResult } from "@airlock/sdk";
import type { Presentation } from "@airlock/sdk/manifest";
import type { Span } from "@opentelemetry/api";
import type { CallOptions } from "../../../contracts/host.ts";
import type { EffectiveLimits } from "../../../isolation/sandbox/types.ts";
import type { AgentState } from "../../catalogue/agent-tools.ts";
import type { CatalogueEntry } from "../../catalogue/catalogue.ts";
import type { HostTool, RunContext, Stop } from "../call-types.ts";
import type { PipelineDeps } from "../deps.ts";

/** How a call ended, set by the runner before the `leave` half runs. */
export interface CallEnd {
  result: ToolResult;
  /** Set when the call stopped short of a normal result. */
  error?: { code: string; message: string };
  blocked: boolean;
  durationMs: number;
  /** The outcome's errorCode (a Stop's code, or AIRLOCK_TOOL_REPORTED_ERROR). */
  errorCode?: string;
}

/** One call in flight: fixed facts first, then what the stages find out, in stage order. */
export interface Call {
  readonly deps: PipelineDeps;
  readonly run: RunContext;
  /** The caller's options; the tracing stage adds the span's traceContext. */
  options: CallOptions;
  readonly callId: string;
  /** performance.now() when the call started. */
  readonly started: number;
  /** The name as the caller wrote it, and its canonical id when it is one. */
  readonly rawName: string;
  readonly rawInput: unknown;
  readonly id: string | undefined;
  /** The run's snapshot entry (undefined: not exposed in this run). */
  readonly entry: CatalogueEntry | undefined;
  readonly toolName: string;
  /** The tool the host answers itself, when it is one (executor `host`; entry is then undefined). */
  readonly host: HostTool | undefined;
  /** The plugin and bare tool name audit rows carry (like the bridge's capability rows). */
  readonly auditPlugin: string | null;
  readonly auditTool: string;
  /** Extra details for the call's audit row (a host tool's answer). */
  auditDetails?: Record<string, unknown>;
  /** How long the approval stage waited for someone's decision (ms), when it asked someone. */
  waitedForApprovalMs?: number;
  readonly presentation: Presentation | undefined;
  /** The fields every tool.* event carries. */
  readonly base: { runId: string; callId: string; agent: string; toolName: string };
  /** Why the named subject was refused (subject stage), null when it was not. */
  subjectProblem: string | null;
  /** Empty until input safety passed; then a plain-JSON copy (hooks may rewrite it). */
  input: Record<string, unknown>;
  inputBytes: number;
  /** The catalogue's entry now (enablement stage). */
  current?: CatalogueEntry;
  /** The agent's enablement, secrets and level as read for this call (enablement stage). */
  state?: AgentState;
  /** Limits in force for the plugin version (validation stage). */
  limits?: EffectiveLimits;
  /** What the executor answered (execute stage). */
  result?: ToolResult;
  /** The call's span while it records (tracing stage). */
  span?: Span;
  /** Set by the runner once every `enter` ran or one stopped. */
  end?: CallEnd;
}

export interface CallStage {
  readonly name: string;
  enter?(call: Call): Promise<Stop | undefined> | Stop | undefined;
  leave?(call: Call): Promise<void> | void;
}

export const stop = (code: string, message: string, blocked = false): Stop => ({ code, message, blocked });

/** A field an earlier stage set: its absence is a bug in the stage order, not a call failure. */
export function reached<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`pipeline stage order: ${what} is not known yet`);
  return value;
}
