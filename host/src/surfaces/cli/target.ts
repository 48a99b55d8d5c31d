// Which host an `airlock` command acts on, and how it reaches it.
// Order: `--data-dir` (or $AIRLOCK_DATA_DIR), else the host this user started last if it is
// still running (host-location.ts), else ./.airlock-data. When a host is serving the chosen
// data dir, the command goes through that host's admin API (admin-client.ts) with the operator
// token kept in the data dir; otherwise it opens the data dir itself. Each command says on
// stderr which one it acts on, so nothing lands in an unexpected store unnoticed.
import type { ParseArgsOptionsConfig } from "node:util";
import type { HostOptions } from "../../config.ts";
import { adminClient, type CliHost } from "./admin-client.ts";
import { dataDirOption, type Parsed, stringOption } from "./args.ts";
import { readCredentials } from "./credentials.ts";
import { cliError } from "./errors.ts";
import { type HostLocation, runningHostOf, userHost } from "./host-location.ts";
import { hostOptionsFrom, withHost } from "./open-host.ts";
import type { CliIO } from "./types.ts";

export interface CliTarget {
  dataDir: string;
  /** The live host serving dataDir, when there is one. */
  running: HostLocation | null;
  /** Why this data dir: the flag, the environment, the running host, or the default. */
  via: "--data-dir" | "AIRLOCK_DATA_DIR" | "running host" | "default" | "--admin-url";
  /** The operator token for --admin-url (from $AIRLOCK_OPERATOR_TOKEN); else credentials.json. */
  token?: string;
}

/** `--admin-url`: act on a host by its admin API (any machine), with $AIRLOCK_OPERATOR_TOKEN. */
export const TARGET_OPTIONS = { "admin-url": { type: "string" } } as const satisfies ParseArgsOptionsConfig;

export const TARGET_OPTIONS_HELP = [
  "  --admin-url URL    Act on the host at this admin API URL (e.g. http://127.0.0.1:4480),",
  "                     with the operator token in $AIRLOCK_OPERATOR_TOKEN.",
].join("\n");

export function resolveTarget(parsed: Parsed, io: CliIO): CliTarget {
  const adminUrl = stringOption(parsed, "admin-url");
  if (adminUrl !== undefined) return byAdminUrl(adminUrl, io);
  const dataDir = dataDirOption(parsed, io);
  const via =
    stringOption(parsed, "data-dir") !== undefined
      ? "--data-dir"
      : io.env.AIRLOCK_DATA_DIR !== undefined
        ? "AIRLOCK_DATA_DIR"
        : userHost(io.env)?.dataDir === dataDir
          ? "running host"
          : "default";
  return { dataDir, running: runningHostOf(dataDir), via };
}

function byAdminUrl(given: string, io: CliIO): CliTarget {
  let url: URL;
  try {
    url = new URL(given);
  } catch (cause) {
    throw cliError(
      "AIRLOCK_CLI_USAGE",
      `--admin-url must be an http(s) URL (got ${JSON.stringify(given)}: ${(cause as Error).message})`,
    );
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw cliError("AIRLOCK_CLI_USAGE", `--admin-url must be an http(s) URL (got ${JSON.stringify(given)})`);
  const token = io.env.AIRLOCK_OPERATOR_TOKEN;
  if (token === undefined || token === "")
    throw cliError(
      "AIRLOCK_CLI_USAGE",
      "--admin-url needs the operator token in $AIRLOCK_OPERATOR_TOKEN — set it to a token from `airlock tokens create --role operator`",
    );
  const adminUrl = url.origin + url.pathname.replace(/\/(api\/?)?$/, "");
  const location: HostLocation = {
    dataDir: "",
    adminUrl,
    registryUrl: null,
    pid: 0,
    version: "",
    startedAt: "",
  };
  return { dataDir: "", running: location, via: "--admin-url", token };
}

/** One line for stderr naming the host a command acts on. */
export function describeTarget(target: CliTarget): string {
  if (target.via === "--admin-url") return `airlock: host at ${target.running?.adminUrl} (via --admin-url)\n`;
  return target.running !== null
    ? `airlock: host at ${target.running.adminUrl} (data: ${target.dataDir})\n`
    : `airlock: data dir ${target.dataDir} (no host running on it; via ${target.via})\n`;
}

/**
 * Runs `body` against the target: the running host through its admin API, else a host opened
 * on the data dir with `options` (whose dataDir is replaced by the target's).
 */
export async function withCliHost<T>(
  target: CliTarget,
  options: HostOptions,
  io: CliIO,
  body: (host: CliHost) => Promise<T>,
): Promise<T> {
  io.stderr(describeTarget(target));
  if (target.running === null) return withHost({ ...options, dataDir: target.dataDir }, body);
  if (target.token !== undefined) return body(adminClient(target.running.adminUrl, target.token, ""));
  const operator = (await readCredentials(target.dataDir)).operator;
  if (operator === undefined) {
    throw cliError(
      "AIRLOCK_CLI_HOST_UNREACHABLE",
      `the host at ${target.running.adminUrl} is running, but ${target.dataDir}/credentials.json holds no operator token for the CLI`,
    );
  }
  return body(adminClient(target.running.adminUrl, operator.token, target.running.version));
}

/** withCliHost for the admin-only commands: the target of `parsed`, opened in-process when no host runs. */
export function withAdminTarget<T>(
  parsed: Parsed,
  io: CliIO,
  body: (host: CliHost) => Promise<T>,
): Promise<T> {
  return withCliHost(resolveTarget(parsed, io), hostOptionsFrom(parsed, io, "in-process"), io, body);
}
