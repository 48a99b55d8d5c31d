// Stage "before-hooks": the beforeToolCall hooks may block the call (their reason is the
// tool's result: AIRLOCK_TOOL_BLOCKED), fail (AIRLOCK_HOOK_FAILED: blocked rather than run
// unchecked) or rewrite the input, which must still be a plain JSON object.
// Invariants: a block is marked blocked; a rewritten input replaces call.input and its size,
// and passes the approval and validation stages like the caller's own; skipped when no hook
// is registered.
import type { Stop } from "../call-types.ts";
import { isPlainObject, plainJson } from "./input-safety.ts";
import { type Call, type CallStage, stop } from "./types.ts";

export const beforeHooksStage: CallStage = {
  name: "before-hooks",
  // Synchronous when no hook is registered: the runner then waits for nothing.
  enter: (call) => (call.deps.hooks.beforeCount === 0 ? undefined : runBeforeHooks(call)),
};

async function runBeforeHooks(call: Call): Promise<Stop | undefined> {
  const { deps, run, toolName } = call;
  const hooked = await deps.hooks.runBefore({
    agent: run.agent,
    runId: run.id,
    toolName,
    input: call.input,
  });
  if (hooked.kind === "blocked") return stop("AIRLOCK_TOOL_BLOCKED", hooked.reason, true);
  if (hooked.kind === "failed") return stop("AIRLOCK_HOOK_FAILED", `Call blocked: ${hooked.message}`, true);
  const rewritten = plainJson(hooked.input);
  if (rewritten === undefined || !isPlainObject(rewritten.value)) {
    return stop(
      "AIRLOCK_HOOK_FAILED",
      "Call blocked: a beforeToolCall hook rewrote the input to non-JSON data",
      true,
    );
  }
  call.input = rewritten.value;
  call.inputBytes = rewritten.bytes;
  return undefined;
}
