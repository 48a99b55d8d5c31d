// The error catalogue of the sandbox runtime (AIRLOCK_SANDBOX_*), and the one constructor.
// Invariants: each code is defined once here with its status and the line docs/sandbox.md shows;
// messages never carry host paths, stacks, secrets or bridge tokens. A code raised by plugin
// code itself (a thrown Error's `code`) travels only in `details.errorCode`, never as our code.
import { defineErrorCodes, type ErrorFactory, errorFactory } from "@airlock/sdk/errors";

export const SANDBOX_ERRORS = defineErrorCodes({
  AIRLOCK_SANDBOX_LIMITS_INVALID: {
    status: 500,
    description: "An operator limit is not a positive integer (details.limit names it).",
  },
  AIRLOCK_SANDBOX_OPTIONS_INVALID: { status: 500, description: "createSandbox got an unknown mode or knob." },
  AIRLOCK_SANDBOX_PLUGIN_NOT_LOADED: { status: 404, description: "No plugin is loaded under that key." },
  AIRLOCK_SANDBOX_BUNDLE_INVALID: {
    status: 422,
    description:
      "The bundle did not compile, threw or spun at load, or does not export a tool the manifest lists.",
  },
  AIRLOCK_SANDBOX_TOOL_NOT_FOUND: { status: 404, description: "The loaded bundle exports no such tool." },
  AIRLOCK_SANDBOX_INPUT_TOO_LARGE: {
    status: 413,
    description: "The tool input is over maxInputBytes (details.limit) once serialised as JSON.",
  },
  AIRLOCK_SANDBOX_INPUT_INVALID: {
    status: 400,
    description: "The tool input is not JSON-serialisable data.",
  },
  AIRLOCK_SANDBOX_ARGS_NOT_COPYABLE: {
    status: 400,
    description:
      "Thrown inside the isolate: arguments to a ctx method were not plain data (functions, proxies, symbols).",
  },
  AIRLOCK_SANDBOX_RESULT_INVALID: {
    status: 502,
    description:
      "The tool returned something that is not plain data (cyclic, getters, proxies that throw, `__proto__` keys, functions, class instances, binary data such as typed arrays, too deep).",
  },
  AIRLOCK_SANDBOX_RESULT_TOO_LARGE: {
    status: 502,
    description: "The tool's result is over maxResultBytes (details.limit) once serialised as JSON.",
  },
  AIRLOCK_SANDBOX_TOOL_THREW: {
    status: 502,
    description:
      "The tool threw (an Error or any other value); details.errorCode carries a string `code` the thrown Error had.",
  },
  AIRLOCK_SANDBOX_TIMER_LIMIT: {
    status: 429,
    description:
      "Thrown inside the isolate: the call already has 1000 timers pending; an uncaught one fails the call with this code.",
  },
  AIRLOCK_SANDBOX_TIMEOUT: {
    status: 504,
    description: "The call passed its wall-clock deadline (wallMs, or the host's own deadline signal).",
  },
  AIRLOCK_SANDBOX_CPU_LIMIT: {
    status: 504,
    description: "The call used more than cpuMs of CPU; the plugin's isolate was reset.",
  },
  AIRLOCK_SANDBOX_MEMORY_LIMIT: {
    status: 507,
    description: "The plugin's isolate went over memoryMb and was disposed; it is recreated on next use.",
  },
  AIRLOCK_SANDBOX_ISOLATE_RESET: {
    status: 503,
    description:
      "Another call of the same plugin exhausted CPU, so the shared isolate was reset under this call; retry.",
  },
  AIRLOCK_SANDBOX_WORKER_CRASHED: {
    status: 503,
    description:
      "The worker process hosting the plugin died or stopped answering; it is restarted, retry the call.",
  },
  AIRLOCK_SANDBOX_UNLOADED: { status: 503, description: "The plugin was unloaded while the call ran." },
  AIRLOCK_SANDBOX_CLOSED: { status: 503, description: "The sandbox is closed." },
  AIRLOCK_SANDBOX_INTERNAL: {
    status: 500,
    description: "An unexpected failure inside the sandbox runtime (a bug); details.reason says where.",
  },
});

export type SandboxErrorCode = keyof typeof SANDBOX_ERRORS;

export const sandboxError: ErrorFactory<typeof SANDBOX_ERRORS> = errorFactory(SANDBOX_ERRORS);

export function isSandboxCode(code: string): code is SandboxErrorCode {
  return Object.hasOwn(SANDBOX_ERRORS, code);
}
