// The part of a call that crosses into the sandbox: load the plugin version (lazily), issue a
// CallGrant through the bridge, run the tool under a wall-clock deadline, revoke the grant.
// Invariants: the grant is revoked and its signal aborted on every path; the host answers at
// the deadline or on the caller's cancellation even if the sandbox has not yet returned; a
// sandbox rejection becomes a Stop carrying its AIRLOCK_* code (AIRLOCK_TOOL_FAILED otherwise).
import { hasCode, type ToolResult } from "@airlock/sdk";
import type { CallNotification } from "../bridge/types.ts";
import type { CatalogueEntry } from "../catalogue/catalogue.ts";
import type { CallOptions } from "../host-types.ts";
import type { EffectiveLimits } from "../sandbox/types.ts";
import type { PipelineDeps } from "./deps.ts";
import type { Stop } from "./invoke.ts";
import type { RunContext } from "./run.ts";

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

function toStop(error: unknown, fallback: string): Stop {
  if (hasCode(error) && error.code.startsWith("AIRLOCK_"))
    return { code: error.code, message: error.message };
  const message = error instanceof Error ? error.message : String(error);
  return { code: "AIRLOCK_TOOL_FAILED", message: `${fallback}: ${message}` };
}

/** The abort reason of a call that ended normally: one shared value, no stack captured per call. */
const CALL_ENDED = Object.freeze(new DOMException("the call has ended", "AbortError"));

/** Resolves when `signal` aborts; never rejects. */
function whenAborted(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener("abort", () => resolve(), { once: true });
  });
}

export async function executeInSandbox(
  deps: PipelineDeps,
  req: ExecuteRequest,
): Promise<{ result: ToolResult } | Stop> {
  const { entry, run, limits } = req;
  let pluginKey: string;
  try {
    pluginKey = await deps.loader.ensure(entry.plugin);
  } catch (error) {
    return toStop(error, `plugin ${entry.namespace}@${entry.version} could not be loaded`);
  }
  const level = req.agentLevel;
  const knowledgeLevel = level === "read" || level === "write" || level === "manage" ? level : null;

  // One controller per call, aborted at the deadline, on the caller's cancellation, or when
  // the call ends (a timer and a listener are cheaper than AbortSignal.timeout/any per call).
  const controller = new AbortController();
  const signal = controller.signal;
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(new DOMException("the call's wall deadline passed", "TimeoutError"));
  }, limits.wallMs);
  timer.unref(); // like AbortSignal.timeout: a pending deadline alone keeps no process alive
  const callerSignal = req.options.signal;
  const onCallerAbort = () => controller.abort(callerSignal?.reason);
  if (callerSignal?.aborted === true) onCallerAbort();
  else callerSignal?.addEventListener("abort", onCallerAbort, { once: true });
  const notify = (n: CallNotification) => {
    if (signal.aborted) return;
    try {
      req.options.onNotification?.(n);
    } catch (error) {
      deps.report(`notification listener of ${entry.id}`, error);
    }
    req.emitProgress(n);
  };

  const grant = deps.grants.issue({
    callId: req.callId,
    agent: run.agent,
    conversationId: run.conversationId,
    plugin: entry.plugin,
    tool: entry.tool,
    knowledgeLevel,
    conversation: req.options.conversation ?? [],
    limits,
    signal,
    notify,
    end: (reason) => controller.abort(reason),
  });
  try {
    const call = deps.sandbox.call(
      {
        pluginKey,
        tool: entry.tool.name,
        input: req.input,
        token: grant.token,
        context: {
          instanceId: run.agent,
          conversationId: run.conversationId,
          toolId: entry.id,
          conversation: [...(req.options.conversation ?? [])],
          attachments: [...(req.options.attachments ?? [])],
          knowledgeLevel,
        },
        signal,
      },
      deps.grants.dispatch,
    );
    const settled = await Promise.race([
      call.then(
        (result) => ({ result }) as const,
        (error: unknown) => ({ error }) as const,
      ),
      whenAborted(signal).then(() => ({ aborted: true }) as const),
    ]);
    // The bridge ended the call at the capability-call cap: that code, whatever the tool did after.
    if (hasCode(signal.reason, "AIRLOCK_BRIDGE_CALL_LIMIT")) return toStop(signal.reason, "");
    if ("result" in settled) return { result: settled.result };
    const timeout = {
      code: "AIRLOCK_TOOL_TIMEOUT",
      message: `Tool ${entry.id} did not finish within ${limits.wallMs} ms and was stopped.`,
    };
    if ("error" in settled && !signal.aborted) {
      // The sandbox keeps the same wall deadline; whichever side notices first, the model
      // sees one code for one condition.
      if (hasCode(settled.error, "AIRLOCK_SANDBOX_TIMEOUT")) return timeout;
      return toStop(settled.error, `tool ${entry.id} failed`);
    }
    // Aborted (or rejected because it was): say why in the caller's terms.
    if (req.options.signal?.aborted === true) {
      return { code: "AIRLOCK_TOOL_CANCELLED", message: "The call was cancelled by the caller." };
    }
    if (timedOut) return timeout;
    return "error" in settled ? toStop(settled.error, `tool ${entry.id} failed`) : toStop(null, "aborted");
  } finally {
    clearTimeout(timer);
    callerSignal?.removeEventListener("abort", onCallerAbort);
    controller.abort(CALL_ENDED);
    deps.grants.revoke(grant.token);
  }
}
