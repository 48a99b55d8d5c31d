// One tool call through the pipeline: the stages of stages/index.ts, in their order (docs/
// pipeline.md walks through them). This file only runs them: it opens the call, runs each
// stage's `enter` until one stops the call, settles the outcome, and runs the `leave` half of
// every stage the call reached, in reverse order.
// Invariants: this function never rejects — every failure (a refusal, a block, a denial, a
// throwing or looping tool, an executor failure) is a ToolCallOutcome whose result has isError
// and a message the model can act on; anything a stage throws is AIRLOCK_TOOL_FAILED (a store
// outage keeps its AIRLOCK_STORE_* code, state/store/failures.ts); a grant
// issued for the call is always revoked (executors/sandbox.ts).
import { randomUUID } from "node:crypto";
import type { AirlockError, ToolResult } from "@airlock/sdk";
import type { CallOptions, ToolCallOutcome } from "../../contracts/host.ts";
import { isStoreOutage } from "../../state/store/failures.ts";
import { canonicalToolId } from "../catalogue/catalogue.ts";
import { subjectRefusal } from "../oauth/subject.ts";
import type { HostTool, RunContext, Stop } from "./call-types.ts";
import type { PipelineDeps } from "./deps.ts";
import { CALL_STAGES } from "./stages/index.ts";
import { type Call, type CallEnd, stop } from "./stages/types.ts";

function openCall(
  deps: PipelineDeps,
  run: RunContext,
  rawName: string,
  rawInput: unknown,
  options: CallOptions,
): Call {
  const callId = `call_${randomUUID()}`;
  const started = performance.now();
  const named = canonicalToolId(rawName);
  const entry = named === undefined ? undefined : run.snapshot.get(named);
  const host = entry === undefined ? hostToolNamed(run, rawName, named) : undefined;
  const id = host?.model.id ?? named;
  const toolName = id ?? String(rawName).slice(0, 200);
  const call: Call = {
    deps,
    run,
    options,
    callId,
    started,
    rawName,
    rawInput,
    id,
    entry,
    toolName,
    host,
    auditPlugin: entry?.namespace ?? (host === undefined ? null : toolName.slice(0, toolName.indexOf(":"))),
    auditTool:
      entry?.tool.name ?? (host === undefined ? toolName : toolName.slice(toolName.indexOf(":") + 1)),
    presentation: entry?.tool.presentation,
    base: { runId: run.id, callId, agent: run.agent, toolName },
    subjectProblem: subjectRefusal(options.subject),
    input: {},
    inputBytes: 0,
  };
  if (host?.auditDetails !== undefined) call.auditDetails = { ...host.auditDetails };
  return call;
}

/** The run's host tool a name means: by its id (or its canonical wire form), else its wire name. */
function hostToolNamed(run: RunContext, rawName: string, id: string | undefined): HostTool | undefined {
  const byId = id === undefined ? undefined : run.hostTools.get(id);
  if (byId !== undefined || typeof rawName !== "string") return byId;
  for (const tool of run.hostTools.values()) if (tool.model.wireName === rawName) return tool;
  return undefined;
}

function settle(call: Call, stopped: Stop | undefined): CallEnd {
  const durationMs = Math.round(performance.now() - call.started);
  if (stopped === undefined) {
    const result = call.result ?? { content: [] };
    const end: CallEnd = { result, blocked: false, durationMs };
    if (result.isError === true) end.errorCode = "AIRLOCK_TOOL_REPORTED_ERROR";
    return end;
  }
  const result: ToolResult = stopped.result ?? {
    content: [{ type: "text", text: stopped.message }],
    isError: true,
  };
  const error = { code: String(stopped.code), message: stopped.message };
  return { result, error, blocked: stopped.blocked === true, durationMs, errorCode: error.code };
}

export async function invokeTool(
  deps: PipelineDeps,
  run: RunContext,
  rawName: string,
  rawInput: unknown,
  options: CallOptions,
): Promise<ToolCallOutcome> {
  const call = openCall(deps, run, rawName, rawInput, options);
  let stopped: Stop | undefined;
  let reachedStages = 0;
  try {
    for (const { stage } of CALL_STAGES) {
      reachedStages++;
      // A stage with nothing to wait for answers synchronously: only a promise is awaited, so
      // the call does not pay an event-loop turn per stage (row 1 of npm run bench).
      const entered = stage.enter?.(call);
      stopped = entered instanceof Promise ? await entered : entered;
      if (stopped !== undefined) break;
    }
  } catch (error) {
    // The stages turn expected failures into Stops; this is the net for the unexpected. A store
    // outage keeps its own code (retryable: AIRLOCK_STORE_UNAVAILABLE or AIRLOCK_STORE_FULL).
    deps.report(`tool call ${call.toolName}`, error);
    stopped = isStoreOutage(error)
      ? stop((error as AirlockError).code, (error as AirlockError).message)
      : stop("AIRLOCK_TOOL_FAILED", "the host failed while running this tool; try again later");
  }
  call.end = settle(call, stopped);
  for (let i = reachedStages - 1; i >= 0; i--) {
    const left = CALL_STAGES[i]?.stage.leave?.(call);
    if (left instanceof Promise) await left;
  }
  // the audit stage replaces the end of a call whose row could not be made durable (fail closed)
  const end = call.end;
  const outcome: ToolCallOutcome = {
    callId: call.callId,
    toolName: call.toolName,
    result: end.result,
    blocked: end.blocked,
    durationMs: end.durationMs,
  };
  if (end.errorCode !== undefined) outcome.errorCode = end.errorCode;
  return outcome;
}
