// Error codes of code mode (search_tools, run_code). A run_code failure is a tool *result* with
// isError and one of these codes (the model reads what to fix); only a bad operator setting is
// thrown (the admin API maps it to its status).
import { AirlockError, defineErrorCodes } from "@airlock/sdk";

export const CODE_MODE_ERRORS = defineErrorCodes({
  AIRLOCK_CODE_SETTINGS_INVALID: {
    status: 400,
    description:
      "A code-mode setting is not accepted (unknown field, a limit outside its range); the message names it and the range.",
  },
  AIRLOCK_CODE_INPUT_INVALID: {
    status: 400,
    description:
      "search_tools or run_code was called with input its schema refuses (code not a string, ...).",
  },
  AIRLOCK_CODE_TOO_LARGE: {
    status: 413,
    description: "The code sent to run_code is over maxCodeBytes.",
  },
  AIRLOCK_CODE_SYNTAX: {
    status: 400,
    description:
      "The code does not parse as JavaScript or strip-only TypeScript; `line` and `column` say where.",
  },
  AIRLOCK_CODE_THREW: {
    status: 422,
    description:
      "The code threw (or an inner call it did not catch failed); `line`, and `innerCall` with its code when a tool call failed.",
  },
  AIRLOCK_CODE_RESULT_INVALID: {
    status: 422,
    description: "The value the code returned is not JSON (a BigInt, a cycle, ...).",
  },
  AIRLOCK_CODE_RESULT_TOO_LARGE: {
    status: 413,
    description: "The returned value and the log together are over maxResultBytes.",
  },
  AIRLOCK_CODE_CPU_LIMIT: { status: 422, description: "The code used more than its cpuMs of CPU." },
  AIRLOCK_CODE_TIMEOUT: {
    status: 504,
    description: "The code ran past its wallMs (inner calls and approval waits count).",
  },
  AIRLOCK_CODE_MEMORY_LIMIT: { status: 422, description: "The code went over its memoryMb." },
  AIRLOCK_CODE_INNER_CALL_LIMIT: {
    status: 429,
    description: "The code made more than maxInnerCalls tool calls; the run was stopped.",
  },
  AIRLOCK_CODE_INNER_BYTES_LIMIT: {
    status: 413,
    description: "Inner tool calls returned more than maxInnerBytes in all; the run was stopped.",
  },
  AIRLOCK_CODE_HARNESS_TOOL: {
    status: 403,
    description: "The code called a harness tool; code mode calls only the agent's own enabled tools.",
  },
  AIRLOCK_CODE_SCRATCH_KEY_INVALID: {
    status: 400,
    description:
      "A scratch key is not 1–128 characters of A–Z, a–z, 0–9 and . _ : / - (scratch.get/set/delete).",
  },
  AIRLOCK_CODE_SCRATCH_VALUE_INVALID: {
    status: 400,
    description:
      "scratch.set was given a value that is not JSON data (undefined, a function, a BigInt, a cycle).",
  },
  AIRLOCK_CODE_SCRATCH_TOO_LARGE: {
    status: 413,
    description:
      "A scratch value is over scratchMaxValueBytes, or the conversation's scratch would pass scratchMaxBytes or scratchMaxKeys; nothing was stored.",
  },
  AIRLOCK_CODE_SCRATCH_OPS_LIMIT: {
    status: 429,
    description: "The code made more than scratchMaxOps scratch calls in one run_code call.",
  },
  AIRLOCK_CODE_SCRATCH_OFF: {
    status: 403,
    description:
      "A scratch call reached the host for an agent whose operator has not turned the scratch store on.",
  },
  AIRLOCK_CODE_SNIPPETS_OFF: {
    status: 403,
    description:
      "run_code was called with saveAs, but the operator has not turned snippets on for this agent; nothing ran.",
  },
  AIRLOCK_CODE_SNIPPET_INVALID: {
    status: 400,
    description:
      "A snippet's name is not ^[a-z][a-z0-9-]{0,47}$, its description is over 500 characters, or its code is empty or over maxCodeBytes.",
  },
  AIRLOCK_CODE_SNIPPET_PROMOTED: {
    status: 409,
    description:
      "run_code tried to replace a snippet an operator promoted into a skill; save under another name.",
  },
  AIRLOCK_CODE_SNIPPET_LIMIT: {
    status: 409,
    description: "The agent already keeps 50 snippets (or 8 MiB of them); an operator deletes some first.",
  },
  AIRLOCK_CODE_SNIPPET_UNKNOWN: { status: 404, description: "The agent has no snippet of that name." },
  AIRLOCK_CODE_CANCELLED: { status: 499, description: "The run_code call was cancelled by its caller." },
  AIRLOCK_CODE_FAILED: {
    status: 500,
    description: "The code-mode sandbox failed unexpectedly (a worker crashed, an isolate reset); retry.",
  },
});

export type CodeModeErrorCode = keyof typeof CODE_MODE_ERRORS;

export function codeModeError(code: CodeModeErrorCode, message: string): AirlockError {
  return new AirlockError(code, message, { status: CODE_MODE_ERRORS[code].status });
}
