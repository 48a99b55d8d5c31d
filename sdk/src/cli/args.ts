// Argument parsing shared by the `airlock-plugin` commands (the CLIs' strict parser in
// kit/parse.ts, with AIRLOCK_SDK_USAGE), and the one way a command reports an error: one line
// `error: AIRLOCK_…: what is wrong — what to do` on stderr (kit/report.ts), then an exit status.
import { resolve } from "node:path";
import { sdkError } from "../error-codes.ts";
import { hasCode } from "../errors.ts";
import { type OptionSpec, parseCommandArgs } from "./kit/parse.ts";
import { isUsageCode, reportFailure } from "./kit/report.ts";
import type { CliIO } from "./types.ts";

export type { OptionSpec } from "./kit/parse.ts";

export interface Parsed {
  values: Record<string, string | boolean | undefined>;
  positionals: string[];
  help: boolean;
}

/** Parses `args` strictly; unknown options throw AIRLOCK_SDK_USAGE. `--help`/`-h` is always accepted. */
export function parse(args: readonly string[], options: OptionSpec, maxPositionals: number): Parsed {
  const parsed = parseCommandArgs(args, options, maxPositionals, (message) =>
    sdkError("AIRLOCK_SDK_USAGE", message),
  );
  return { values: parsed.values as Parsed["values"], positionals: parsed.positionals, help: parsed.help };
}

/** The plugin directory: the first positional, resolved against the cwd (default: the cwd). */
export function pluginDirOf(parsed: Parsed, io: CliIO): string {
  return resolve(io.cwd, parsed.positionals[0] ?? ".");
}

export function stringOption(parsed: Parsed, name: string): string | undefined {
  const value = parsed.values[name];
  return typeof value === "string" ? value : undefined;
}

/**
 * Reports a command's failure as the one error line and answers its exit status (1, or 2 for
 * AIRLOCK_SDK_USAGE). A usage error is handed back to the dispatcher (kit/program.ts), which
 * adds the command's usage line to it.
 */
export function reportError(err: unknown, io: CliIO): number {
  if (hasCode(err) && isUsageCode(err.code)) throw err;
  return reportFailure(err, io);
}
