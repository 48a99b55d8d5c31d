// Strict option parsing for every Airlock CLI command: node:util parseArgs, with its failures
// turned into the CLI's usage error and an unknown option answered with the nearest known one.
// Contract: `parseCommandArgs(args, options, maxPositionals, usage)` answers the values and
// positionals, or throws `usage(message)` (the CLI's AIRLOCK_*_USAGE error): an unknown option
// names the closest declared option ("did you mean --port?"), a missing value names the option,
// one positional too many names it. `--help`/`-h` is always accepted (values.help).
import { type ParseArgsConfig, parseArgs } from "node:util";
import { hasCode } from "../../errors.ts";
import { didYouMean } from "./suggest.ts";

export type OptionSpec = NonNullable<ParseArgsConfig["options"]>;

export interface ParsedArgs {
  values: Record<string, string | boolean | string[] | undefined>;
  positionals: string[];
  help: boolean;
}

/** Builds the CLI's usage error from a message. */
export type UsageError = (message: string) => Error;

function optionNames(options: OptionSpec): string[] {
  const names = Object.keys(options).map((n) => `--${n}`);
  for (const spec of Object.values(options)) if (spec.short !== undefined) names.push(`-${spec.short}`);
  return names;
}

/** parseArgs' message, rewritten in the CLI's words. */
function explain(error: unknown, options: OptionSpec): string {
  const message = error instanceof Error ? error.message : String(error);
  const code = hasCode(error) ? error.code : "";
  const named = /'(-{1,2}[^'\s]+)/.exec(message)?.[1];
  if (code === "ERR_PARSE_ARGS_UNKNOWN_OPTION" && named !== undefined) {
    const flag = named.split("=")[0] as string;
    // Without a near option the dispatcher adds the command's usage line.
    return `unknown option ${flag}${didYouMean(flag, optionNames(options), false)}`;
  }
  if (code === "ERR_PARSE_ARGS_INVALID_OPTION_VALUE" && named !== undefined) {
    const flag = named.split(/[ =]/)[0] as string;
    const spec = options[flag.replace(/^-+/, "")];
    return spec?.type === "boolean" ? `option ${flag} takes no value` : `option ${flag} needs a value`;
  }
  return message.split(". ")[0] ?? message;
}

export function parseCommandArgs(
  args: readonly string[],
  options: OptionSpec,
  maxPositionals: number,
  usage: UsageError,
): ParsedArgs {
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args: [...args],
      options: { help: { type: "boolean", short: "h" }, ...options },
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    throw usage(explain(error, options));
  }
  const values = parsed.values as ParsedArgs["values"];
  if (values.help !== true && parsed.positionals.length > maxPositionals) {
    throw usage(`unexpected argument ${JSON.stringify(parsed.positionals[maxPositionals])}`);
  }
  return { values, positionals: parsed.positionals, help: values.help === true };
}
