// The code's one way out of its isolate during a run_code call: the dispatch the code-mode
// sandbox answers `tools.<ns>.<tool>(input)` and `scratch.*` with. A tool call goes through the
// run (the whole pipeline, as if the agent had made it, naming the run_code call as its
// parentCallId); a scratch call goes to the conversation's scratch store bound to the call.
// Invariants: only this call's token is answered, and only the `tools.call` and `state`
// capabilities (anything else: AIRLOCK_BRIDGE_UNKNOWN_CAPABILITY); every call the code makes is
// recorded (InnerCallRecord) before it runs; maxInnerCalls and maxInnerBytes end the whole run
// through `stop` (the caller aborts the sandbox call), whatever the code catches.
import { AirlockError } from "@airlock/sdk";
import type { CallOptions, Run, ToolCallOutcome } from "../../contracts/host.ts";
import type { BridgeDispatch } from "../../isolation/bridge/types.ts";
import { canonicalToolId } from "../catalogue/catalogue.ts";
import type { CodeModeErrorCode } from "./errors.ts";
import type { InnerCallRecord } from "./run-code-results.ts";
import type { Scratch } from "./scratch.ts";
import type { CodeModeLimits } from "./settings.ts";

export interface InnerCallsRequest {
  run: Run;
  token: string;
  limits: CodeModeLimits;
  /** The options every inner call is made with (the caller's, the run's signal, parentCallId). */
  options: CallOptions;
  scratch: Scratch;
  /** Why a tool of the run may not be called from code (a harness tool), or null. */
  refuse(toolId: string): { code: CodeModeErrorCode; message: string } | null;
  /** Inner calls waiting for an approval are reported here (the caller tells the client). */
  onInnerStart?(toolId: string): () => void;
  /** Ends the whole run with this code; returns the error to throw into the code. */
  stop(code: CodeModeErrorCode, message: string): AirlockError;
  /** Every call the code made, in order (the run_code audit row lists them). */
  calls: InnerCallRecord[];
}

/** What an inner call hands back to the code: structured data, else its text, else its parts. */
function innerValue(outcome: ToolCallOutcome): unknown {
  const { result } = outcome;
  if (result.structuredContent !== undefined) return result.structuredContent;
  const parts = result.content;
  if (parts.length === 1 && parts[0]?.type === "text") return parts[0].text;
  return parts;
}

export function innerDispatch(req: InnerCallsRequest): BridgeDispatch {
  const { limits, calls } = req;
  let innerBytes = 0;

  async function innerCall(rawId: unknown, toolInput: unknown): Promise<unknown> {
    if (calls.length >= limits.maxInnerCalls) {
      throw req.stop(
        "AIRLOCK_CODE_INNER_CALL_LIMIT",
        `the code made more than maxInnerCalls = ${limits.maxInnerCalls} tool calls and was stopped`,
      );
    }
    const id = typeof rawId === "string" ? (canonicalToolId(rawId) ?? rawId) : String(rawId);
    const record: InnerCallRecord = { tool: id.slice(0, 200), callId: null, errorCode: null, durationMs: 0 };
    calls.push(record);
    const refused = req.refuse(id);
    if (refused !== null) {
      record.errorCode = refused.code;
      return { ok: false, code: refused.code, message: refused.message, callId: null };
    }
    const done = req.onInnerStart?.(id);
    const started = performance.now();
    let outcome: ToolCallOutcome;
    try {
      outcome = await req.run.call(id, toolInput, req.options);
    } finally {
      done?.();
    }
    record.durationMs = Math.round(performance.now() - started);
    record.callId = outcome.callId;
    record.errorCode = outcome.errorCode ?? null;
    if (outcome.errorCode !== undefined) {
      const text = outcome.result.content.map((p) => (p.type === "text" ? p.text : "")).join("\n");
      return { ok: false, code: outcome.errorCode, message: text.slice(0, 2000), callId: outcome.callId };
    }
    const value = innerValue(outcome);
    innerBytes += Buffer.byteLength(JSON.stringify(value) ?? "null", "utf8");
    if (innerBytes > limits.maxInnerBytes) {
      throw req.stop(
        "AIRLOCK_CODE_INNER_BYTES_LIMIT",
        `inner calls returned more than maxInnerBytes = ${limits.maxInnerBytes} bytes in all; the code was stopped`,
      );
    }
    return { ok: true, value, callId: outcome.callId };
  }

  return async (t, capability, method, args) => {
    // the code's capabilities: tools, and the scratch store (ctx.state in the runtime) which
    // refuses itself when off; anything else (a forged token, another ctx method) is refused
    if (t === req.token && capability === "state") return req.scratch.call(method, args);
    if (t !== req.token || capability !== "tools" || method !== "call") {
      throw new AirlockError(
        "AIRLOCK_BRIDGE_UNKNOWN_CAPABILITY",
        "code mode offers only tools.<ns>.<tool>()",
      );
    }
    return innerCall(args[0], args[1]);
  };
}
