// Executor "sandbox": a plugin tool runs in its isolate. Loads the plugin version (lazily),
// issues a CallGrant through the bridge, runs the tool, revokes the grant.
// Invariants: the grant is revoked and its signal aborted on every path; the wall deadline is the
// sandbox's own (both modes start it where the call enters the sandbox and reject at once when it
// passes or when the caller's signal aborts: the Sandbox contract), so a call has one deadline
// timer and one abort path; a sandbox rejection becomes a Stop carrying its AIRLOCK_* code
// (AIRLOCK_TOOL_FAILED otherwise), a passed deadline always AIRLOCK_TOOL_TIMEOUT, and a call that
// failed after a capability call met a store outage that outage's AIRLOCK_STORE_* code.
import { hasCode, type ToolResult } from "@airlock/sdk";
import type {
  BridgeDispatch,
  CallNotification,
  ElicitChannel,
  OpenUrlChannel,
} from "../../../isolation/bridge/types.ts";
import { isStoreOutage } from "../../../state/store/failures.ts";
import { inChildSpan } from "../../observability/spans.ts";
import type { ExecuteRequest, Stop } from "../call-types.ts";
import type { GrantRequest, PipelineDeps } from "../deps.ts";

function toStop(error: unknown, fallback: string): Stop {
  if (hasCode(error) && error.code.startsWith("AIRLOCK_"))
    return { code: error.code, message: error.message };
  const message = error instanceof Error ? error.message : String(error);
  return { code: "AIRLOCK_TOOL_FAILED", message: `${fallback}: ${message}` };
}

/**
 * The caller's channel, ending the call when a 2026-07-28 round needs the answer first (the
 * client retries with it), whatever the plugin does with the error.
 */
function endingRound<Q, A>(
  ask: ((question: Q, signal: AbortSignal) => Promise<A>) | undefined,
  controller: AbortController,
): ((question: Q, signal: AbortSignal) => Promise<A>) | undefined {
  if (ask === undefined) return undefined;
  return async (question, signal) => {
    try {
      return await ask(question, signal);
    } catch (error) {
      if (hasCode(error, "AIRLOCK_INPUT_REQUIRED")) controller.abort(error);
      throw error;
    }
  };
}

/** The abort reason of a call that ended normally: one shared value, no stack captured per call. */
const CALL_ENDED = Object.freeze(new DOMException("the call has ended", "AbortError"));

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

  // One controller per call, aborted on the caller's cancellation or when the call ends; the
  // sandbox's deadline follows it, and the grant uses it as its own (one controller per call).
  const controller = new AbortController();
  const signal = controller.signal;
  const callerSignal = req.options.signal;
  const onCallerAbort = () => controller.abort(callerSignal?.reason);
  if (callerSignal?.aborted === true) onCallerAbort();
  else callerSignal?.addEventListener("abort", onCallerAbort, { once: true });
  // The host stopping its calls (a drain's grace is over): the call ends with AIRLOCK_HOST_CLOSED.
  const stopping = deps.stopping;
  const onStop = () => controller.abort(stopping?.reason);
  if (stopping?.aborted === true) onStop();
  else stopping?.addEventListener("abort", onStop, { once: true });
  const notify = (n: CallNotification) => {
    if (signal.aborted) return;
    try {
      req.options.onNotification?.(n);
    } catch (error) {
      deps.report(`notification listener of ${entry.id}`, error);
    }
    req.emitProgress(n);
  };

  // ctx.elicit and a capability's URL question (ctx.oauth's connect link) through the caller's
  // channels; a 2026-07-28 round that needs the answer first ends the call here.
  const elicit: ElicitChannel | undefined = endingRound(req.options.people?.elicit, controller);
  const openUrl: OpenUrlChannel | undefined = endingRound(req.options.people?.openUrl, controller);
  const request: GrantRequest = {
    callId: req.callId,
    agent: run.agent,
    conversationId: run.conversationId,
    subject: req.options.subject ?? "",
    plugin: entry.plugin,
    tool: entry.tool,
    knowledgeLevel,
    conversation: req.options.conversation ?? [],
    limits,
    signal,
    controller,
    notify,
    end: (reason) => controller.abort(reason),
  };
  if (elicit !== undefined) request.elicit = elicit;
  if (openUrl !== undefined) request.openUrl = openUrl;
  if (req.options.traceContext !== undefined) request.trace = req.options.traceContext;
  const grant = deps.grants.issue(request);
  // A capability call the store could not serve (state/store/failures.ts): the call ends with the
  // store's retryable code, whatever the plugin made of it (AIRLOCK_SANDBOX_TOOL_THREW when it
  // let the error go).
  let outage: unknown;
  const bridge = deps.grants.dispatch;
  const dispatch: BridgeDispatch = Object.assign(
    (token: string, capability: string, method: string, args: unknown[]) =>
      bridge(token, capability, method, args).catch((error: unknown) => {
        if (isStoreOutage(error)) outage = error;
        throw error;
      }),
    bridge.refusedBefore === undefined ? {} : { refusedBefore: bridge.refusedBefore },
  );
  try {
    const sandboxCall = () =>
      deps.sandbox.call(
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
          ...(req.options.wallMs === undefined ? {} : { wallMs: req.options.wallMs }),
        },
        dispatch,
      );
    const result = await inChildSpan(
      req.options.traceContext,
      "airlock.sandbox_run",
      { "airlock.tool": entry.id, "airlock.call_id": req.callId, "airlock.sandbox": deps.sandbox.mode },
      sandboxCall,
    );
    // The bridge ended the call at the capability-call cap: that code, whatever the tool did after.
    if (hasCode(signal.reason, "AIRLOCK_BRIDGE_CALL_LIMIT")) return toStop(signal.reason, "");
    if (hasCode(signal.reason, "AIRLOCK_INPUT_REQUIRED")) return toStop(signal.reason, "");
    if (hasCode(signal.reason, "AIRLOCK_HOST_CLOSED")) return toStop(signal.reason, "");
    return { result };
  } catch (error) {
    if (hasCode(signal.reason, "AIRLOCK_BRIDGE_CALL_LIMIT")) return toStop(signal.reason, "");
    if (hasCode(signal.reason, "AIRLOCK_INPUT_REQUIRED")) return toStop(signal.reason, "");
    if (hasCode(signal.reason, "AIRLOCK_HOST_CLOSED")) return toStop(signal.reason, "");
    // Ended by the caller: say so in the caller's terms, whatever the sandbox answered.
    if (callerSignal?.aborted === true) {
      return { code: "AIRLOCK_TOOL_CANCELLED", message: "The call was cancelled by the caller." };
    }
    // The sandbox's wall deadline: one code for one condition. A task call's own ceiling
    // replaces the plugin's wallMs (the sandbox applies whichever it is given).
    if (hasCode(error, "AIRLOCK_SANDBOX_TIMEOUT")) {
      const wallMs = req.options.wallMs ?? limits.wallMs;
      return {
        code: "AIRLOCK_TOOL_TIMEOUT",
        message: `Tool ${entry.id} did not finish within ${wallMs} ms and was stopped.`,
      };
    }
    if (outage !== undefined) return toStop(outage, "");
    return toStop(error, `tool ${entry.id} failed`);
  } finally {
    callerSignal?.removeEventListener("abort", onCallerAbort);
    stopping?.removeEventListener("abort", onStop);
    controller.abort(CALL_ENDED);
    deps.grants.revoke(grant.token);
  }
}
