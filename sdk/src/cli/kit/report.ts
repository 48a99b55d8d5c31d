// The one voice of the three CLIs (airlock, airlock-plugin, airlock-registry) for failures and
// exit statuses. Contract: every failure is ONE line on stderr,
//   error: AIRLOCK_…: what is wrong — what to do
// and the process exits EXIT.USAGE (2) for a usage error, EXIT.FAILED (1) for any other failure.
// Invariants: line breaks inside a message are folded into the one line; an error without an
// AIRLOCK_ code (a bug) is AIRLOCK_INTERNAL with its message only (the stack only with
// AIRLOCK_DEBUG=1), never a stack dump by default.
import { hasCode } from "../../errors.ts";

/** Exit statuses of every command of every Airlock CLI. */
export const EXIT = {
  /** The command did what it was asked (also: asked for what already is, e.g. already installed). */
  OK: 0,
  /** The command ran and the operation failed: the error line names the code. */
  FAILED: 1,
  /** The command was called wrongly: unknown command or option, missing or malformed argument. */
  USAGE: 2,
} as const;

/** The exit-status paragraph every CLI's --help ends with. */
export const EXIT_STATUS_HELP = [
  "Exit status: 0 done; 1 the operation failed; 2 wrong usage (unknown command or option,",
  "missing argument). Errors are one line: error: AIRLOCK_…: what is wrong — what to do.",
].join("\n");

export interface ReportIO {
  stderr: (text: string) => void;
  env: Readonly<Record<string, string | undefined>>;
}

/** `error: CODE: message` on one line (line breaks folded), with its newline. */
export function errorLine(code: string, message: string): string {
  const folded = message
    .split(/\r?\n/)
    .map((part) => part.trim())
    .filter((part) => part !== "")
    .join(" ");
  return `error: ${code}: ${folded}\n`;
}

/** Whether a code is a usage error of some CLI (AIRLOCK_*_USAGE or AIRLOCK_*_UNKNOWN_COMMAND). */
export function isUsageCode(code: string): boolean {
  return /^AIRLOCK_[A-Z]+_(USAGE|UNKNOWN_COMMAND)$/.test(code);
}

/** Prints `error` as the one error line and answers the exit status. */
export function reportFailure(error: unknown, io: ReportIO): number {
  if (hasCode(error) && error.code.startsWith("AIRLOCK_")) {
    io.stderr(errorLine(error.code, error.message));
    return isUsageCode(error.code) ? EXIT.USAGE : EXIT.FAILED;
  }
  const message = error instanceof Error ? error.message : String(error);
  io.stderr(
    errorLine(
      "AIRLOCK_INTERNAL",
      `${message} — unexpected; AIRLOCK_DEBUG=1 prints the stack, please report it`,
    ),
  );
  if (io.env.AIRLOCK_DEBUG === "1" && error instanceof Error && error.stack) io.stderr(`${error.stack}\n`);
  return EXIT.FAILED;
}
