// Stage "audit": the call's one audit row (kind "tool", action "call"), written once the call
// ended, after the afterToolCall hooks. The row names the plugin and its bare tool, the run,
// the call, the version, blocked, the parent call (code mode) and the end user named (a refused
// subject is not repeated: it may be anything).
// Invariants: never stops a call; a refusal (a code in REFUSALS: the call was refused before the
// tool ran) is audited allowed: false; success only for a result the tool did not mark isError;
// deps.audit never rejects (a failed write is reported by the host).
import type { CallStage } from "./types.ts";

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
    if (options.subject !== undefined && options.subject !== "" && call.subjectProblem === null)
      details.subject = options.subject;
    await call.deps.audit({
      agent: run.agent,
      plugin: call.auditPlugin,
      tool: call.auditTool,
      conversationId: run.conversationId,
      kind: "tool",
      action: "call",
      allowed: end.error === undefined || !REFUSALS.has(end.error.code),
      success: end.error === undefined && end.result.isError !== true,
      error: end.error?.code ?? null,
      durationMs: end.durationMs,
      details,
    });
  },
};
