// One run_code call: strip the code's types, run it in the agent's code-mode isolate (a context
// of its own), and answer every `await tools.<ns>.<tool>(input)` it makes by a call through the
// run it belongs to — the whole pipeline, as if the agent had made it (enablement, secrets,
// hooks, approval, validation, grants, audit naming this call as parentCallId, events).
// Invariants: the code's only way out is the dispatch built here, bound to this call's token and
// run (the code cannot name another agent, conversation or run); a limit — inner calls, inner
// bytes — ends the whole run at once (the sandbox call is aborted; its isolate is retired); every
// outcome is a ToolResult the model can act on (never a throw), carrying a stable code.
import { randomBytes } from "node:crypto";
import { AirlockError, hasCode, type ToolResult } from "@airlock/sdk";
import type { CallOptions, Run, ToolCallOutcome } from "../../contracts/host.ts";
import { canonicalToolId } from "../catalogue/catalogue.ts";
import type { CodeSandbox } from "./code-sandbox.ts";
import { type CodeModeErrorCode, codeModeError } from "./errors.ts";
import type { Scratch } from "./scratch.ts";
import type { CodeModeLimits } from "./settings.ts";
import { stripCode } from "./strip.ts";

/** One tool call the code made, as the run_code audit entry lists it. */
export interface InnerCallRecord {
  tool: string;
  callId: string | null;
  errorCode: string | null;
  durationMs: number;
}

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

export interface RunCodeReport {
  result: ToolResult;
  /** The code of a failed run (undefined when the code returned normally). */
  errorCode?: string;
  calls: InnerCallRecord[];
}

interface RuntimeError {
  code: string;
  message: string;
  line?: number;
  column?: number;
  innerCall?: { tool: string; callId: string | null; code: string };
}

function errorResult(error: RuntimeError, log: string, logTruncated: boolean): ToolResult {
  const where =
    error.line === undefined
      ? ""
      : ` (line ${error.line}${error.column === undefined ? "" : `:${error.column}`})`;
  const inner =
    error.innerCall === undefined
      ? ""
      : `\nThe failing call: ${error.innerCall.tool} answered ${error.innerCall.code}.`;
  const text = `${error.code}: ${error.message}${where}${inner}${log === "" ? "" : `\n--- console ---\n${log}`}`;
  const structured: Record<string, unknown> = { error: { ...error } };
  if (log !== "") structured.log = log;
  if (logTruncated) structured.logTruncated = true;
  return { content: [{ type: "text", text }], isError: true, structuredContent: structured };
}

/** What an inner call hands back to the code: structured data, else its text, else its parts. */
function innerValue(outcome: ToolCallOutcome): unknown {
  const { result } = outcome;
  if (result.structuredContent !== undefined) return result.structuredContent;
  const parts = result.content;
  if (parts.length === 1 && parts[0]?.type === "text") return parts[0].text;
  return parts;
}

const SANDBOX_TO_CODE: Readonly<Record<string, CodeModeErrorCode>> = {
  AIRLOCK_SANDBOX_CPU_LIMIT: "AIRLOCK_CODE_CPU_LIMIT",
  AIRLOCK_SANDBOX_MEMORY_LIMIT: "AIRLOCK_CODE_MEMORY_LIMIT",
  AIRLOCK_SANDBOX_RESULT_TOO_LARGE: "AIRLOCK_CODE_RESULT_TOO_LARGE",
  AIRLOCK_SANDBOX_INPUT_TOO_LARGE: "AIRLOCK_CODE_TOO_LARGE",
};

function limitMessage(code: string, limits: CodeModeLimits): string {
  switch (code) {
    case "AIRLOCK_CODE_CPU_LIMIT":
      return `the code used more than cpuMs = ${limits.cpuMs} ms of CPU and was stopped; do less work in the code (an endless loop?)`;
    case "AIRLOCK_CODE_TIMEOUT":
      return `the code did not finish within wallMs = ${limits.wallMs} ms (inner calls and approvals count) and was stopped`;
    case "AIRLOCK_CODE_MEMORY_LIMIT":
      return `the code went over memoryMb = ${limits.memoryMb} MB and was stopped; hold less data at once`;
    case "AIRLOCK_CODE_RESULT_TOO_LARGE":
      return `the returned value and the log are over maxResultBytes = ${limits.maxResultBytes} bytes; return less`;
    case "AIRLOCK_CODE_TOO_LARGE":
      return `the code is over maxCodeBytes = ${limits.maxCodeBytes} bytes`;
    default:
      return "the code-mode sandbox failed; try again";
  }
}

export async function runCode(sandbox: CodeSandbox, req: RunCodeRequest): Promise<RunCodeReport> {
  const { limits } = req;
  const calls: InnerCallRecord[] = [];
  const fail = (
    code: CodeModeErrorCode,
    message: string,
    extra: Partial<RuntimeError> = {},
  ): RunCodeReport => ({
    result: errorResult({ code, message, ...extra }, "", false),
    errorCode: code,
    calls,
  });

  const input = req.input as { code?: unknown } | null;
  const code = typeof input === "object" && input !== null ? input.code : undefined;
  if (typeof code !== "string" || code.trim() === "") {
    return fail("AIRLOCK_CODE_INPUT_INVALID", 'run_code takes {"code": "<JavaScript or TypeScript>"}');
  }
  // saveAs is code-mode-run.ts's (snippets.ts), checked there before this runs
  const extra = Object.keys(input as object).filter((k) => k !== "code" && k !== "saveAs");
  if (extra.length > 0) {
    return fail(
      "AIRLOCK_CODE_INPUT_INVALID",
      `run_code takes only "code" (and "saveAs"); unknown: ${extra.join(", ")}`,
    );
  }
  if (Buffer.byteLength(code, "utf8") > limits.maxCodeBytes) {
    return fail("AIRLOCK_CODE_TOO_LARGE", limitMessage("AIRLOCK_CODE_TOO_LARGE", limits));
  }
  const stripped = await stripCode(code);
  if (!stripped.ok) {
    const at: Partial<RuntimeError> = {};
    if (stripped.line !== undefined) at.line = stripped.line;
    if (stripped.column !== undefined) at.column = stripped.column;
    return fail("AIRLOCK_CODE_SYNTAX", stripped.message, at);
  }

  // One controller: the caller's cancellation, a limit this file enforces, the sandbox's deadline.
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
  let innerBytes = 0;
  const innerOptions: CallOptions = { ...req.options, signal: controller.signal, parentCallId: req.callId };

  async function innerCall(rawId: unknown, toolInput: unknown): Promise<unknown> {
    if (calls.length >= limits.maxInnerCalls) {
      throw stop(
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
      outcome = await req.run.call(id, toolInput, innerOptions);
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
      throw stop(
        "AIRLOCK_CODE_INNER_BYTES_LIMIT",
        `inner calls returned more than maxInnerBytes = ${limits.maxInnerBytes} bytes in all; the code was stopped`,
      );
    }
    return { ok: true, value, callId: outcome.callId };
  }

  const dispatch = async (t: string, capability: string, method: string, args: unknown[]) => {
    // the code's capabilities: tools, and the scratch store (ctx.state in the runtime) which
    // refuses itself when off; anything else (a forged token, another ctx method) is refused
    if (t === token && capability === "state") return req.scratch.call(method, args);
    if (t !== token || capability !== "tools" || method !== "call") {
      throw new AirlockError(
        "AIRLOCK_BRIDGE_UNKNOWN_CAPABILITY",
        "code mode offers only tools.<ns>.<tool>()",
      );
    }
    return innerCall(args[0], args[1]);
  };

  let raw: ToolResult;
  try {
    raw = await sandbox.call({
      agent: req.run.agent,
      limits,
      input: {
        source: stripped.source,
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
    const reason = controller.signal.reason as unknown;
    if (hasCode(reason) && reason.code.startsWith("AIRLOCK_CODE_")) {
      return fail(reason.code as CodeModeErrorCode, reason.message);
    }
    const sandboxCode = hasCode(error) ? error.code : "";
    const mapped: CodeModeErrorCode =
      SANDBOX_TO_CODE[sandboxCode] ??
      (sandboxCode === "AIRLOCK_SANDBOX_TIMEOUT" ? "AIRLOCK_CODE_TIMEOUT" : "AIRLOCK_CODE_FAILED");
    const message =
      mapped === "AIRLOCK_CODE_FAILED"
        ? `${limitMessage(mapped, limits)} (${sandboxCode || "unexpected failure"})`
        : limitMessage(mapped, limits);
    return fail(mapped, message);
  } finally {
    callerSignal?.removeEventListener("abort", onCallerAbort);
    if (!controller.signal.aborted)
      controller.abort(new DOMException("the run_code call has ended", "AbortError"));
  }
  return shape(raw, calls);
}

/** The runtime's answer (isolate/runtime.js) → the result the model reads. */
function shape(raw: ToolResult, calls: InnerCallRecord[]): RunCodeReport {
  const reply = (raw.structuredContent ?? {}) as Record<string, unknown>;
  const log = typeof reply.log === "string" ? reply.log : "";
  const logTruncated = reply.logTruncated === true;
  if (reply.ok !== true) {
    const error: RuntimeError = {
      code:
        typeof reply.code === "string" && reply.code.startsWith("AIRLOCK_CODE_")
          ? reply.code
          : "AIRLOCK_CODE_THREW",
      message: typeof reply.message === "string" ? reply.message : "the code failed",
    };
    if (typeof reply.line === "number") error.line = reply.line;
    if (typeof reply.column === "number") error.column = reply.column;
    const inner = reply.innerCall as Record<string, unknown> | undefined;
    if (inner !== undefined && typeof inner.tool === "string" && typeof inner.code === "string") {
      error.innerCall = {
        tool: inner.tool,
        callId: typeof inner.callId === "string" ? inner.callId : null,
        code: inner.code,
      };
    }
    return { result: errorResult(error, log, logTruncated), errorCode: error.code, calls };
  }
  let value: unknown = null;
  try {
    value = JSON.parse(typeof reply.json === "string" ? reply.json : "null");
  } catch {
    value = null; // the runtime's own JSON.stringify output: parses unless the realm was patched
  }
  const structured: Record<string, unknown> = { value };
  if (log !== "") structured.log = log;
  if (logTruncated) structured.logTruncated = true;
  return {
    result: { content: [{ type: "text", text: JSON.stringify(structured) }], structuredContent: structured },
    calls,
  };
}
