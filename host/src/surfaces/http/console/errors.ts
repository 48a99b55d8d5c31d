// The error catalogue of the operator console (AIRLOCK_CONSOLE_*): signing in, the session
// cookie and its CSRF token. Invariants: a code is defined once here, with its status and the
// line docs/errors.md shows; every refusal these codes name is also audited.
import { AirlockError, defineErrorCodes } from "@airlock/sdk/errors";

export const CONSOLE_ERRORS = defineErrorCodes({
  AIRLOCK_CONSOLE_OPERATOR_ONLY: {
    status: 403,
    description:
      "The console signs in operators only: an agent token (or anything but an operator token) is refused.",
  },
  AIRLOCK_CONSOLE_CSRF_REFUSED: {
    status: 403,
    description:
      "A request that changes something came with the console's session cookie but without its CSRF token (x-airlock-csrf) or with a wrong one; reload the console.",
  },
  AIRLOCK_CONSOLE_SESSION_EXPIRED: {
    status: 401,
    description:
      "The console session cookie is expired, altered, or its session was signed out; sign in again.",
  },
});

export type ConsoleErrorCode = keyof typeof CONSOLE_ERRORS;

export function consoleError(code: ConsoleErrorCode, message: string): AirlockError {
  return new AirlockError(code, message, { status: CONSOLE_ERRORS[code].status });
}
