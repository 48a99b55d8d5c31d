// One run_code call: check and strip the code's types, run it in the agent's code-mode isolate
// (a context of its own), and answer every `await tools.<ns>.<tool>(input)` it makes by a call
// through the run it belongs to (inner-calls.ts) — the whole pipeline, as if the agent had made
// it (enablement, secrets, hooks, approval, validation, grants, audit naming this call as
// parentCallId, events).
// Invariants: the code's only way out is the dispatch built for this call, bound to its token
// and run (the code cannot name another agent, conversation or run); a limit — inner calls,
// inner bytes — ends the whole run at once (the sandbox call is aborted; its isolate is
// retired); every outcome is a ToolResult the model can act on (never a throw), carrying a
// stable code (run-code-results.ts).
import { randomBytes } from "node:crypto";
import { type AirlockError, hasCode, type ToolResult } from "@airlock/sdk";
import type { CallOptions, Run } from "../../contracts/host.ts";
import type { CodeSandbox } from "./code-sandbox.ts";
import { type CodeModeErrorCode, codeModeError } from "./errors.ts";
import { innerDispatch } from "./inner-calls.ts";
import {
  errorResult,
  type InnerCallRecord,
  limitMessage,
  type RunCodeReport,
  type RuntimeError,
  SANDBOX_TO_CODE,
  shape,
} from "./run-code-results.ts";
import type { Scratch } from "./scratch.ts";
import type { CodeModeLimits } from "./settings.ts";
import { stripCode } from "./strip.ts";

export type { InnerCallRecord, RunCodeReport } from "./run-code-results.ts";

export interface RunCodeRequest {
  run: Run;
  /** The run_code call's id (inner calls name it as their parentCallId). */
  callId: string;
  input: unknown;
  limits: CodeModeLimits;
  options: CallOptions;
  /** Served tool names per namespace, for `Object.keys(tools)` (any name may still be called). */
  namespaces: Record<string, string[]>;
  /** Why a tool of the run may not be called from code (a harness tool), or null. */
  refuse(toolId: string): { code: CodeModeErrorCode; message: string } | null;
  /** The conversation's scratch store bound to this call (refuses every call when it is off). */
  scratch: Scratch;
  /** Whether the code gets the `scratch` global (the operator's setting). */
  scratchOn: boolean;
  /** Inner calls waiting for an approval are reported here (the caller tells the client). */
  onInnerStart?(toolId: string): () => void;
}

type Failure = { code: CodeModeErrorCode; message: string; at?: Partial<RuntimeError> };

/** The input's code, checked (shape, size) and stripped of its types; or why it cannot run. */
async function checkedSource(input: unknown, limits: CodeModeLimits): Promise<{ source: string } | Failure> {
  const args = input as { code?: unknown } | null;
  const code = typeof args === "object" && args !== null ? args.code : undefined;
  if (typeof code !== "string" || code.trim() === "") {
    return {
      code: "AIRLOCK_CODE_INPUT_INVALID",
      message: 'run_code takes {"code": "<JavaScript or TypeScript>"}',
    };
  }
  // saveAs is host-tools.ts's (save-as.ts, snippets.ts), checked there before this runs
  const extra = Object.keys(args as object).filter((k) => k !== "code" && k !== "saveAs");
  if (extra.length > 0) {
    return {
      code: "AIRLOCK_CODE_INPUT_INVALID",
      message: `run_code takes only "code" (and "saveAs"); unknown: ${extra.join(", ")}`,
    };
  }
  if (Buffer.byteLength(code, "utf8") > limits.maxCodeBytes) {
    return { code: "AIRLOCK_CODE_TOO_LARGE", message: limitMessage("AIRLOCK_CODE_TOO_LARGE", limits) };
  }
  const stripped = await stripCode(code);
  if (stripped.ok) return { source: stripped.source };
  const at: Partial<RuntimeError> = {};
  if (stripped.line !== undefined) at.line = stripped.line;
  if (stripped.column !== undefined) at.column = stripped.column;
  return { code: "AIRLOCK_CODE_SYNTAX", message: stripped.message, at };
}

/** Why the sandbox call failed, as code mode's code: a limit this call enforced first, else the sandbox's. */
function sandboxFailure(error: unknown, reason: unknown, limits: CodeModeLimits): Failure {
  if (hasCode(reason) && reason.code.startsWith("AIRLOCK_CODE_")) {
    return { code: reason.code as CodeModeErrorCode, message: reason.message };
  }
  const sandboxCode = hasCode(error) ? error.code : "";
  // the runtime catches what the code throws; what the sandbox reports as thrown is the code's
  // too: a throw in a timer or microtask callback, a promise rejected with no handler
  if (sandboxCode === "AIRLOCK_SANDBOX_TOOL_THREW" && error instanceof Error)
    return { code: "AIRLOCK_CODE_THREW", message: error.message.replace(/^the tool /, "the code ") };
  const mapped: CodeModeErrorCode =
    SANDBOX_TO_CODE[sandboxCode] ??
    (sandboxCode === "AIRLOCK_SANDBOX_TIMEOUT" ? "AIRLOCK_CODE_TIMEOUT" : "AIRLOCK_CODE_FAILED");
  const message =
    mapped === "AIRLOCK_CODE_FAILED"
      ? `${limitMessage(mapped, limits)} (${sandboxCode || "unexpected failure"})`
      : limitMessage(mapped, limits);
  return { code: mapped, message };
}

export async function runCode(sandbox: CodeSandbox, req: RunCodeRequest): Promise<RunCodeReport> {
  const { limits } = req;
  const calls: InnerCallRecord[] = [];
  const fail = ({ code, message, at }: Failure): RunCodeReport => ({
    result: errorResult({ code, message, ...at }, "", false),
    errorCode: code,
    calls,
  });
  const checked = await checkedSource(req.input, limits);
  if (!("source" in checked)) return fail(checked);

  // One controller: the caller's cancellation, a limit inner-calls.ts enforces, the sandbox's deadline.
  const controller = new AbortController();
  const callerSignal = req.options.signal;
  const onCallerAbort = () =>
    controller.abort(
      codeModeError("AIRLOCK_CODE_CANCELLED", "the run_code call was cancelled by its caller"),
    );
  if (callerSignal?.aborted === true) onCallerAbort();
  else callerSignal?.addEventListener("abort", onCallerAbort, { once: true });
  const stop = (code: CodeModeErrorCode, message: string): AirlockError => {
    const error = codeModeError(code, message);
    if (!controller.signal.aborted) controller.abort(error);
    return error;
  };

  const token = randomBytes(32).toString("base64url");
  const dispatch = innerDispatch({
    run: req.run,
    token,
    limits,
    options: { ...req.options, signal: controller.signal, parentCallId: req.callId },
    scratch: req.scratch,
    refuse: req.refuse,
    ...(req.onInnerStart === undefined ? {} : { onInnerStart: req.onInnerStart }),
    stop,
    calls,
  });

  let raw: ToolResult;
  try {
    raw = await sandbox.call({
      agent: req.run.agent,
      limits,
      input: {
        source: checked.source,
        namespaces: req.namespaces,
        maxLogBytes: limits.maxLogBytes,
        scratch: req.scratchOn,
      },
      context: {
        instanceId: req.run.agent,
        conversationId: req.run.conversationId,
        toolId: "airlock:run_code",
        conversation: [],
        attachments: [],
        knowledgeLevel: null,
        codeMode: true,
      },
      signal: controller.signal,
      dispatch,
      token,
    });
  } catch (error) {
    return fail(sandboxFailure(error, controller.signal.reason, limits));
  } finally {
    callerSignal?.removeEventListener("abort", onCallerAbort);
    if (!controller.signal.aborted)
      controller.abort(new DOMException("the run_code call has ended", "AbortError"));
  }
  return shape(raw, calls);
}
