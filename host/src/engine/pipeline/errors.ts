// Error codes of the invocation pipeline (runs, calls, hooks, approvals). Most of them never
// reach a caller as a thrown error: they become the `errorCode` of a ToolCallOutcome whose
// result carries `isError: true` and a message the model can act on. The `status` is what the
// admin API uses when one of them does cross it (decideApproval, startRun).
import { defineErrorCodes } from "@airlock/sdk";

export const PIPELINE_ERRORS = defineErrorCodes({
  AIRLOCK_TOOL_NOT_EXPOSED: {
    status: 404,
    description:
      "The tool is not part of this run's catalogue snapshot (unknown, disabled, or registered after the run started); call one of the run's tools.",
  },
  AIRLOCK_TOOL_SUBJECT_INVALID: {
    status: 400,
    description:
      'The caller named an end user (`subject`: MCP `_meta["airlock/subject"]`, the calls route\'s `subject`) that is not 1–128 characters of A–Z a–z 0–9 . _ @ + : -; the call did not run.',
  },
  AIRLOCK_TOOL_DISABLED: {
    status: 403,
    description: "An operator disabled the tool for this agent after the run started.",
  },
  AIRLOCK_TOOL_SECRET_MISSING: {
    status: 409,
    description: "A required secret of the tool is not set for this agent; an operator must set it.",
  },
  AIRLOCK_TOOL_UNAVAILABLE: {
    status: 410,
    description: "The tool's plugin was uninstalled or deactivated after the run started.",
  },
  AIRLOCK_TOOL_BLOCKED: {
    status: 403,
    description: "A beforeToolCall hook blocked the call; its reason is the tool's result.",
  },
  AIRLOCK_HOOK_FAILED: {
    status: 500,
    description: "A beforeToolCall hook threw; the call was blocked rather than run unchecked.",
  },
  AIRLOCK_APPROVAL_DENIED: {
    status: 403,
    description: "An operator (or the host closing) denied the approval the call was waiting for.",
  },
  AIRLOCK_APPROVAL_NOT_FOUND: {
    status: 404,
    description:
      "No approval has this id (never existed, or decided or ended so long ago that it is forgotten).",
  },
  AIRLOCK_APPROVAL_CALL_GONE: {
    status: 410,
    description:
      "The call this approval was for no longer waits (it was cancelled or timed out, its replica stopped or died, or its approval expired); nothing runs, the decision is refused.",
  },
  AIRLOCK_APPROVAL_ALREADY_DECIDED: {
    status: 409,
    description:
      "Another decision of this approval came first (another operator, replica or surface); the message names the decision that stands.",
  },
  AIRLOCK_TOOL_CANCELLED: {
    status: 499,
    description: "The caller cancelled the call (its AbortSignal fired) before it finished.",
  },
  AIRLOCK_TOOL_INPUT_INVALID: {
    status: 422,
    description:
      "The input does not match the tool's input schema; the message names each path and what is expected.",
  },
  AIRLOCK_TOOL_INPUT_NOT_UNICODE: {
    status: 422,
    description: "A string or key of the input holds a lone UTF-16 surrogate: it is not Unicode text.",
  },
  AIRLOCK_TOOL_INPUT_KEY_FORBIDDEN: {
    status: 422,
    description:
      "The input uses `__proto__`, `constructor` or `prototype` as a key, anywhere; they are refused, never dropped.",
  },
  AIRLOCK_TOOL_INPUT_TOO_LARGE: {
    status: 413,
    description: "The serialised input is larger than the plugin's maxInputBytes limit.",
  },
  AIRLOCK_TOOL_OUTPUT_INVALID: {
    status: 502,
    description: "The tool's structuredContent does not match the output schema it declares.",
  },
  AIRLOCK_TOOL_RESULT_TOO_LARGE: {
    status: 502,
    description: "The tool's result is larger than the plugin's maxResultBytes limit.",
  },
  AIRLOCK_TOOL_TIMEOUT: {
    status: 504,
    description: "The call ran past its wall-clock deadline and was abandoned.",
  },
  AIRLOCK_AUDIT_UNAVAILABLE: {
    status: 503,
    description:
      "The call's audit row could not be made durable, so its result is withheld (fail closed); the tool may have run.",
  },
  AIRLOCK_TOOL_FAILED: {
    status: 500,
    description: "The tool failed without a more specific code (the sandbox or plugin threw).",
  },
  AIRLOCK_TOOL_REPORTED_ERROR: {
    status: 422,
    description:
      "The tool ran and answered with its own error result (`{success: false}` or `isError`); its text says why.",
  },
  AIRLOCK_PLUGIN_BUNDLE_UNREADABLE: {
    status: 500,
    description: "The installed plugin's index.js could not be read from its install directory.",
  },
  AIRLOCK_PLUGIN_INTEGRITY_MISMATCH: {
    status: 500,
    description:
      "The installed bundle's sha512 no longer matches manifest.bundle.integrity; it is not loaded.",
  },
  AIRLOCK_PLUGIN_WORKER_TIER_INVALID: {
    status: 400,
    description: "A plugin's worker tier is `own` (a sandbox worker of its own) or `shared`; nothing else.",
  },
  AIRLOCK_RUN_AGENT_NOT_FOUND: {
    status: 404,
    description: "A run was started for an agent that does not exist.",
  },
  AIRLOCK_RUN_UNKNOWN_HARNESS_GROUP: {
    status: 400,
    description: "A run asked for a harness group that no active plugin provides.",
  },
  AIRLOCK_HOST_CLOSED: {
    status: 503,
    description: "The host is closing or closed; no new runs or calls are accepted.",
  },
});

export type PipelineErrorCode = keyof typeof PIPELINE_ERRORS;
