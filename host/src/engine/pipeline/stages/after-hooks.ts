// Stage "after-hooks": the afterToolCall hooks, once the call ended (before its audit row),
// with a copy of the input as the tool saw it (or as far as the call got), the result or the
// error, blocked and the duration.
// Invariants: never stops a call and never changes its outcome; a throwing hook is reported
// and audited (action "hook.after_failed") and the other hooks still run (pipeline/hooks.ts);
// skipped entirely when no hook is registered (no copies made).
import type { Call, CallEnd, CallStage } from "./types.ts";

export const afterHooksStage: CallStage = {
  name: "after-hooks",
  // Synchronous when no hook is registered: the runner then waits for nothing.
  leave: (call) =>
    call.end === undefined || call.deps.hooks.afterCount === 0 ? undefined : runAfterHooks(call, call.end),
};

async function runAfterHooks(call: Call, end: CallEnd): Promise<void> {
  const { deps, run, toolName } = call;
  await deps.hooks.runAfter(
    {
      agent: run.agent,
      runId: run.id,
      toolName,
      input: structuredClone(call.input),
      ...(end.error === undefined ? { result: structuredClone(end.result) } : { error: end.error }),
      blocked: end.blocked,
      durationMs: end.durationMs,
    },
    (hookError) => {
      deps.report(`afterToolCall hook for ${toolName}`, hookError);
      void deps.audit({
        agent: run.agent,
        plugin: call.auditPlugin,
        tool: call.auditTool,
        conversationId: run.conversationId,
        kind: "tool",
        action: "hook.after_failed",
        allowed: true,
        success: false,
        error: hookError instanceof Error ? hookError.message : String(hookError),
        durationMs: null,
        details: { runId: run.id, callId: call.callId },
      });
    },
  );
}
