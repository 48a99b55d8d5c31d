// Stage "audit": the call's one audit row (kind "tool", action "call"), written once the call
// ended, after the afterToolCall hooks. The row names the plugin and its bare tool, the run,
// the call, the version, blocked, the parent call (code mode), the time it waited for an approval
// (waitedForApprovalMs, when someone was asked) and the end user named (a refused
// subject is not repeated: it may be anything). A call that one of its own limits ended (a code
// in TERMINATIONS: CPU, wall, memory, capability calls, timers, result copy, output) gets one
// termination row first (action "call.terminated", details {name, limit}): every call passes
// here, so wherever in the call the limit fired — the tool's body, a getter of its result, the
// copy of the result, the output check — the row is written, and only once.
// Invariants: a refusal (a code in REFUSALS: the call was refused before the tool ran) is audited
// allowed: false; success only for a result the tool did not mark isError. The audit keeps its
// promise (fail closed): a call that produced a result but whose row could not be made durable
// (deps.auditDurable rejected: the store unreachable or full) is never acknowledged — its result
// is withheld and the call
// ends with the store's code (AIRLOCK_STORE_UNAVAILABLE or AIRLOCK_STORE_FULL; otherwise
// AIRLOCK_AUDIT_UNAVAILABLE), the failure reported to the host. The tool itself may have run.
import type { EffectiveLimits } from "../../../contracts/config.ts";
import { MAX_PENDING_TIMERS } from "../../../isolation/sandbox/runtime/index.ts";
import { isStoreOutage, storeFailure } from "../../../state/store/failures.ts";
import type { AuditInput } from "../../../state/store/types.ts";
import type { Call, CallEnd, CallStage } from "./types.ts";

/** Codes that mean the call was refused before the tool ran (audited with allowed: false). */
export const REFUSALS: ReadonlySet<string> = new Set([
  "AIRLOCK_TOOL_SUBJECT_INVALID",
  "AIRLOCK_TOOL_NOT_EXPOSED",
  "AIRLOCK_TOOL_DISABLED",
  "AIRLOCK_TOOL_SECRET_MISSING",
  "AIRLOCK_TOOL_UNAVAILABLE",
  "AIRLOCK_TOOL_BLOCKED",
  "AIRLOCK_HOOK_FAILED",
  "AIRLOCK_APPROVAL_DENIED",
  "AIRLOCK_TOOL_INPUT_INVALID",
  "AIRLOCK_TOOL_INPUT_TOO_LARGE",
  "AIRLOCK_TOOL_INPUT_NOT_UNICODE",
  "AIRLOCK_TOOL_INPUT_KEY_FORBIDDEN",
  "AIRLOCK_SKILL_INPUT_INVALID",
  "AIRLOCK_CODE_INPUT_INVALID",
]);

/** The codes of a call ended by one of its own limits, and the limit each names. */
export const TERMINATIONS: Readonly<Record<string, keyof EffectiveLimits | "timers">> = {
  AIRLOCK_SANDBOX_CPU_LIMIT: "cpuMs",
  AIRLOCK_SANDBOX_MEMORY_LIMIT: "memoryMb",
  AIRLOCK_SANDBOX_TIMEOUT: "wallMs",
  AIRLOCK_TOOL_TIMEOUT: "wallMs",
  AIRLOCK_BRIDGE_CALL_LIMIT: "capabilityCalls",
  AIRLOCK_SANDBOX_TIMER_LIMIT: "timers",
  AIRLOCK_SANDBOX_RESULT_TOO_LARGE: "maxResultBytes",
  AIRLOCK_TOOL_RESULT_TOO_LARGE: "maxResultBytes",
};

/** The termination row of a call a limit ended, or null (no limit, or a host tool: no limits). */
function terminationOf(call: Call, base: Omit<AuditInput, "action" | "details">): AuditInput | null {
  const code = call.end?.error?.code;
  const name = code === undefined || !Object.hasOwn(TERMINATIONS, code) ? undefined : TERMINATIONS[code];
  if (name === undefined || call.limits === undefined) return null;
  const limit =
    name === "timers"
      ? MAX_PENDING_TIMERS
      : name === "wallMs"
        ? (call.options.wallMs ?? call.limits.wallMs)
        : call.limits[name];
  const details: Record<string, unknown> = { runId: call.run.id, callId: call.callId, name, limit };
  if (call.options.parentCallId !== undefined) details.parentCallId = call.options.parentCallId;
  return { ...base, action: "call.terminated", allowed: true, details };
}

export const auditStage: CallStage = {
  name: "audit",
  async leave(call) {
    const { end, run, options, entry } = call;
    if (end === undefined) return;
    const details: Record<string, unknown> = {
      runId: run.id,
      callId: call.callId,
      version: entry?.version ?? null,
      blocked: end.blocked,
      ...call.auditDetails,
    };
    if (options.parentCallId !== undefined) details.parentCallId = options.parentCallId;
    if (call.waitedForApprovalMs !== undefined) details.waitedForApprovalMs = call.waitedForApprovalMs;
    if (options.subject !== undefined && options.subject !== "" && call.subjectProblem === null)
      details.subject = options.subject;
    const base = {
      agent: run.agent,
      plugin: call.auditPlugin,
      tool: call.auditTool,
      conversationId: run.conversationId,
      kind: "tool" as const,
      allowed: end.error === undefined || !REFUSALS.has(end.error.code),
      success: end.error === undefined && end.result.isError !== true,
      error: end.error?.code ?? null,
      durationMs: end.durationMs,
    };
    const termination = terminationOf(call, base);
    try {
      if (termination !== null) await call.deps.auditDurable(termination);
      await call.deps.auditDurable({ ...base, action: "call", details });
    } catch (error) {
      // A call that already failed keeps its own code (it is not acknowledged either way).
      call.deps.report(
        end.error === undefined ? "audit write (the call's result is withheld)" : "audit write",
        error,
      );
      if (end.error === undefined) call.end = withheld(end, error);
    }
  },
};

/** The end of a call whose audit row could not be made durable: an error, never its result. */
function withheld(end: CallEnd, error: unknown): CallEnd {
  // a journal write that found no space (ENOSPC) is a full store too
  const coded = storeFailure(error, "sqlite");
  const code = isStoreOutage(coded) ? (coded as { code: string }).code : "AIRLOCK_AUDIT_UNAVAILABLE";
  const message =
    "the host could not record this call in its audit trail, so its result is withheld; " +
    "the tool may have run: check before retrying";
  return {
    result: { content: [{ type: "text", text: message }], isError: true },
    error: { code, message },
    blocked: false,
    durationMs: end.durationMs,
    errorCode: code,
  };
}
