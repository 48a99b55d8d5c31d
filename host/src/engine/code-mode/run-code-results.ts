// run_code's results: what the model reads when the code returned, threw or hit a limit (text,
// and structuredContent with the value or the error, the log and whether it was cut), the
// messages that name each limit, and the record of each inner call the audit row lists.
// Invariants: every failure is an isError result carrying an AIRLOCK_CODE_* code (a code the
// runtime reports that is not one is AIRLOCK_CODE_THREW); a message names the limit and its value.
import type { ToolResult } from "@airlock/sdk";
import type { CodeModeErrorCode } from "./errors.ts";
import type { CodeModeLimits } from "./settings.ts";

/** One tool call the code made, as the run_code audit entry lists it. */
export interface InnerCallRecord {
  tool: string;
  callId: string | null;
  errorCode: string | null;
  durationMs: number;
}

export interface RunCodeReport {
  result: ToolResult;
  /** The code of a failed run (undefined when the code returned normally). */
  errorCode?: string;
  calls: InnerCallRecord[];
}

export interface RuntimeError {
  code: string;
  message: string;
  line?: number;
  column?: number;
  innerCall?: { tool: string; callId: string | null; code: string };
}

export function errorResult(error: RuntimeError, log: string, logTruncated: boolean): ToolResult {
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

export const SANDBOX_TO_CODE: Readonly<Record<string, CodeModeErrorCode>> = {
  AIRLOCK_SANDBOX_CPU_LIMIT: "AIRLOCK_CODE_CPU_LIMIT",
  AIRLOCK_SANDBOX_MEMORY_LIMIT: "AIRLOCK_CODE_MEMORY_LIMIT",
  AIRLOCK_SANDBOX_RESULT_TOO_LARGE: "AIRLOCK_CODE_RESULT_TOO_LARGE",
  AIRLOCK_SANDBOX_INPUT_TOO_LARGE: "AIRLOCK_CODE_TOO_LARGE",
};

export function limitMessage(code: string, limits: CodeModeLimits): string {
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

/** The runtime's answer (isolate/runtime.js) → the result the model reads. */
export function shape(raw: ToolResult, calls: InnerCallRecord[]): RunCodeReport {
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
