// Argument parsing shared by the commands (node:util parseArgs, strict), and the one way a
// command reports an error: `error <CODE>: <message>` on stderr, then an exit status.
import { resolve } from "node:path";
import { type ParseArgsConfig, parseArgs } from "node:util";
import { sdkError } from "../error-codes.ts";
import { hasCode } from "../errors.ts";
import { type CliIO, EXIT } from "./types.ts";

export type OptionSpec = NonNullable<ParseArgsConfig["options"]>;

export interface Parsed {
  values: Record<string, string | boolean | undefined>;
  positionals: string[];
  help: boolean;
}

/** Parses `args` strictly; unknown options throw AIRLOCK_SDK_USAGE. `--help`/`-h` is always accepted. */
export function parse(args: readonly string[], options: OptionSpec, maxPositionals: number): Parsed {
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args: [...args],
      options: { ...options, help: { type: "boolean", short: "h" } },
      allowPositionals: true,
      strict: true,
    });
  } catch (err) {
    throw sdkError("AIRLOCK_SDK_USAGE", err instanceof Error ? err.message : String(err), { cause: err });
  }
  const values = parsed.values as Record<string, string | boolean | undefined>;
  if (values.help !== true && parsed.positionals.length > maxPositionals) {
    throw sdkError("AIRLOCK_SDK_USAGE", `unexpected argument "${parsed.positionals[maxPositionals]}"`);
  }
  return { values, positionals: parsed.positionals, help: values.help === true };
}

/** The plugin directory: the first positional, resolved against the cwd (default: the cwd). */
export function pluginDirOf(parsed: Parsed, io: CliIO): string {
  return resolve(io.cwd, parsed.positionals[0] ?? ".");
}

export function stringOption(parsed: Parsed, name: string): string | undefined {
  const value = parsed.values[name];
  return typeof value === "string" ? value : undefined;
}

/** Prints an error and returns its exit status: USAGE for AIRLOCK_SDK_USAGE, else FAILED. */
export function reportError(err: unknown, io: CliIO): number {
  if (hasCode(err)) {
    io.stderr(`error ${err.code}: ${err.message}\n`);
    return err.code === "AIRLOCK_SDK_USAGE" ? EXIT.USAGE : EXIT.FAILED;
  }
  io.stderr(`error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  return EXIT.FAILED;
}
