// Error codes of the first-party bootstrap of `airlock start`.
import { AirlockError, defineErrorCodes, hasCode } from "@airlock/sdk/errors";

export const BOOTSTRAP_ERRORS = defineErrorCodes({
  AIRLOCK_BOOTSTRAP_REGISTRY_FAILED: {
    status: 500,
    description: "The local registry child process did not start or exited; its stderr is in details.stderr.",
  },
  AIRLOCK_BOOTSTRAP_PLUGIN_FAILED: {
    status: 500,
    description:
      "A first-party plugin could not be built, packed, published or installed; the cause says which step.",
  },
  AIRLOCK_BOOTSTRAP_NO_PLUGINS: {
    status: 500,
    description: "No first-party plugin directory (plugins/<name>/package.json) was found next to the host.",
  },
});

export type BootstrapErrorCode = keyof typeof BOOTSTRAP_ERRORS;

export function bootstrapError(
  code: BootstrapErrorCode,
  message: string,
  options: { details?: Record<string, unknown>; cause?: unknown } = {},
): AirlockError {
  const cause = options.cause;
  const why =
    cause === undefined
      ? ""
      : `: ${hasCode(cause) ? `${cause.code} ` : ""}${cause instanceof Error ? cause.message : String(cause)}`;
  return new AirlockError(code, `${message}${why}`, { status: BOOTSTRAP_ERRORS[code].status, ...options });
}
