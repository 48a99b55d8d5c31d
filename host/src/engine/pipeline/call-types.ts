// The shapes one tool call is made of, shared by the pipeline's stages and its executors:
// the run a call belongs to (its catalogue snapshot), a Stop (why a call ended short of a
// normal result), and what an executor is handed. Types only: this file imports no code, so
// an executor elsewhere in the engine (remote/) can name them without importing the pipeline.
// Invariants: a RunContext's snapshot never changes during its run; a Stop's code is an
// AIRLOCK_* code from an error catalogue.
import type { ToolResult } from "@airlock/sdk";
import type { CallOptions, ModelTool, Run } from "../../contracts/host.ts";
import type { CallNotification } from "../../isolation/bridge/types.ts";
import type { EffectiveLimits } from "../../isolation/sandbox/types.ts";
import type { CatalogueEntry } from "../catalogue/catalogue.ts";
import type { PipelineErrorCode } from "./errors.ts";

export interface RunContext {
  id: string;
  agent: string;
  conversationId: string;
  autoApprove: boolean;
  /** The replica the run started on (its calls' spans name it). */
  replica: string;
  /** Canonical id → the entry as it was when the run started. */
  snapshot: ReadonlyMap<string, CatalogueEntry>;
  /** Canonical id → the tools the host answers itself in this run (executors/host.ts). */
  hostTools: ReadonlyMap<string, HostTool>;
  /**
   * The run a host tool calls other tools through (code mode's run_code): the same snapshot,
   * agent, conversation and run id, without host tools (a host tool never calls one).
   */
  inner: Run;
}

/** What a host tool answers: a result, or an error result with its code; extra audit details. */
export interface HostAnswer {
  result: ToolResult;
  errorCode?: string;
  details?: Record<string, unknown>;
}

/** The call a host tool answers: its id, and the run it may call other tools through. */
export interface HostCall {
  callId: string;
  /** RunContext.inner: each call made through it is a full pipeline call of its own. */
  run: Run;
}

/**
 * A tool the host answers itself (executor `host`): listed in the run like a plugin tool and
 * called through the same stages, except those docs/pipeline.md says it skips.
 */
export interface HostTool {
  readonly model: ModelTool;
  /**
   * Details every audit row of its calls carries, a call refused before it was answered
   * included; the answer's own details are added over them.
   */
  readonly auditDetails?: Readonly<Record<string, unknown>>;
  /**
   * Listed alone: a run with such a tool lists only those (code mode's exclusive mode); every
   * other tool of the run stays callable by name.
   */
  readonly exclusive?: boolean;
  answer(input: Record<string, unknown>, options: CallOptions, call: HostCall): Promise<HostAnswer>;
}

/** Why a call stopped short of a normal result. */
export interface Stop {
  code: PipelineErrorCode | string;
  message: string;
  blocked?: boolean;
  /** The result to answer with instead of the message alone (a host tool's own error result). */
  result?: ToolResult;
}

/** What an executor runs: the call's checked input under the plugin's limits. */
export interface ExecuteRequest {
  callId: string;
  run: RunContext;
  entry: CatalogueEntry;
  input: Record<string, unknown>;
  limits: EffectiveLimits;
  /** The agent's knowledge level as read at this call's start ("none" → no ctx.knowledge). */
  agentLevel: string;
  options: CallOptions;
  emitProgress(notification: CallNotification): void;
}
