// Error codes of host start-up and wiring (createHost).
import { AirlockError, defineErrorCodes } from "@airlock/sdk";

export const HOST_ERRORS = defineErrorCodes({
  AIRLOCK_HOST_LIFECYCLE_UNAVAILABLE: {
    status: 501,
    description: "Plugin install/upgrade/rollback/uninstall is not wired into this host build.",
  },
});

export function hostError(code: keyof typeof HOST_ERRORS, message: string): AirlockError {
  return new AirlockError(code, message, { status: HOST_ERRORS[code].status });
}
