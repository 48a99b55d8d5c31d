// Option parsing for `airlock` commands: the CLIs' shared strict parser (@airlock/sdk/cli-kit),
// with failures turned into AIRLOCK_CLI_USAGE, plus small typed readers (ports, enums, data dir).
import { resolve } from "node:path";
import type { ParseArgsOptionsConfig } from "node:util";
import { didYouMean, parseCommandArgs } from "@airlock/sdk/cli-kit";
import type { StoreOption } from "../../config.ts";
import { cliError } from "./errors.ts";
import { userHost } from "./host-location.ts";
import type { CliIO } from "./types.ts";

export interface Parsed {
  values: Record<string, string | boolean | string[] | undefined>;
  positionals: string[];
}

export function parseOptions(
  args: readonly string[],
  options: ParseArgsOptionsConfig,
  positionals = 0,
): Parsed {
  // The shared parser (@airlock/sdk/cli-kit): an unknown option names the closest known one.
  const parsed = parseCommandArgs(args, options, positionals, (message) =>
    cliError("AIRLOCK_CLI_USAGE", message),
  );
  return { values: parsed.values, positionals: parsed.positionals };
}

export function stringOption(parsed: Parsed, name: string): string | undefined {
  const value = parsed.values[name];
  return typeof value === "string" ? value : undefined;
}

export function listOption(parsed: Parsed, name: string): string[] {
  const value = parsed.values[name];
  return Array.isArray(value) ? value : typeof value === "string" ? [value] : [];
}

export function requiredPositional(parsed: Parsed, index: number, what: string): string {
  const value = parsed.positionals[index];
  if (value === undefined) throw cliError("AIRLOCK_CLI_USAGE", `missing ${what}`);
  return value;
}

export function portOption(parsed: Parsed, name: string, fallback: number): number {
  const raw = stringOption(parsed, name);
  if (raw === undefined) return fallback;
  const port = Number(raw);
  if (!/^\d+$/.test(raw) || port > 65535) {
    throw cliError(
      "AIRLOCK_CLI_USAGE",
      `--${name} must be a port number 0–65535 (got ${JSON.stringify(raw)})`,
    );
  }
  return port;
}

export function enumOption<T extends string>(
  parsed: Parsed,
  name: string,
  allowed: readonly T[],
  fallback: T,
): T {
  const raw = stringOption(parsed, name);
  if (raw === undefined) return fallback;
  if (!(allowed as readonly string[]).includes(raw)) {
    throw cliError(
      "AIRLOCK_CLI_USAGE",
      `--${name} must be one of ${allowed.join(", ")} (got ${JSON.stringify(raw)})${didYouMean(raw, allowed)}`,
    );
  }
  return raw as T;
}

/**
 * --data-dir, else $AIRLOCK_DATA_DIR, else (with `followRunning`) the data dir of the host this
 * user started and that still runs (host-location.ts), else ./.airlock-data; against the CLI's cwd.
 */
export function dataDirOption(parsed: Parsed, io: CliIO, followRunning = true): string {
  const given = stringOption(parsed, "data-dir") ?? io.env.AIRLOCK_DATA_DIR;
  if (given !== undefined) return resolve(io.cwd, given);
  return (followRunning ? userHost(io.env)?.dataDir : undefined) ?? resolve(io.cwd, ".airlock-data");
}

export const DATA_DIR_OPTION = { "data-dir": { type: "string" } } as const satisfies ParseArgsOptionsConfig;

/**
 * --store URL, else $AIRLOCK_STORE_URL: `postgres://` or `postgresql://` selects PostgreSQL, with
 * `?schema=NAME` taken out of the URL as the store's schema. Undefined: the SQLite default.
 */
export function storeOption(parsed: Parsed, io: CliIO): StoreOption | undefined {
  const raw = stringOption(parsed, "store") ?? io.env.AIRLOCK_STORE_URL;
  if (raw === undefined || raw === "") return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw cliError("AIRLOCK_CLI_USAGE", "--store must be a URL such as postgres://user@host:5432/airlock");
  }
  if (url.protocol !== "postgres:" && url.protocol !== "postgresql:") {
    throw cliError(
      "AIRLOCK_CLI_USAGE",
      `--store accepts postgres:// or postgresql:// URLs (got ${JSON.stringify(url.protocol)}); ` +
        "leave it out for SQLite in --data-dir",
    );
  }
  const schema = url.searchParams.get("schema");
  url.searchParams.delete("schema");
  return { kind: "postgres", url: url.toString(), ...(schema === null ? {} : { schema }) };
}
