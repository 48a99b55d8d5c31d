// Opening a host for a CLI command from its options: the data directory (SQLite store, vault
// key, installed plugins), the sandbox mode, the registry URL. Shared by every command that
// works on a data directory, so they all agree on defaults and environment variables.
// `--store URL` (or AIRLOCK_STORE_URL) picks the shared store: a `postgres://` URL selects
// PostgreSQL (`?schema=` names its schema); without it the store is SQLite in the data directory.
// Env: AIRLOCK_DATA_DIR, AIRLOCK_STORE_URL, AIRLOCK_REGISTRY_URL, AIRLOCK_SANDBOX (workers | in-process).
import type { ParseArgsOptionsConfig } from "node:util";
import { closest } from "@airlock/sdk/cli-kit";
import type { HostOptions } from "../../config.ts";
import type { AirlockHost } from "../../contracts/host.ts";
import { createHost } from "../../host.ts";
import { dataDirOption, enumOption, type Parsed, storeOption, stringOption } from "./args.ts";
import { cliError } from "./errors.ts";
import type { CliIO } from "./types.ts";

export const HOST_OPTIONS = {
  "data-dir": { type: "string" },
  store: { type: "string" },
  sandbox: { type: "string" },
  registry: { type: "string" },
} as const satisfies ParseArgsOptionsConfig;

/** The --data-dir lines of `airlock start`/`serve`, which start a host rather than follow one. */
export const START_DATA_DIR_HELP = [
  "  --data-dir DIR     Data directory (SQLite store, vault key, plugins).",
  "                     Default: $AIRLOCK_DATA_DIR or ./.airlock-data. While it runs, the host",
  "                     records where it is in <data-dir>/host.json and",
  "                     ~/.local/state/airlock/host.json, so `airlock` commands find it.",
].join("\n");

const DATA_DIR_HELP = [
  "  --data-dir DIR     Data directory (SQLite store, vault key, plugins).",
  "                     Default: $AIRLOCK_DATA_DIR, else the host you started last while it",
  "                     runs (~/.local/state/airlock/host.json), else ./.airlock-data.",
  "                     A command on a running host goes through its admin API.",
].join("\n");

/** The --store lines: a shared PostgreSQL store instead of SQLite in the data dir. */
export const STORE_HELP = [
  "  --store URL        The store: a postgres:// URL (?schema=NAME picks the schema) for replicas",
  "                     sharing one PostgreSQL (docs/deploy.md). Default: $AIRLOCK_STORE_URL, else",
  "                     SQLite in the data directory.",
].join("\n");

export const HOST_OPTIONS_HELP = [
  DATA_DIR_HELP,
  STORE_HELP,
  "  --sandbox MODE     workers (isolates in worker processes) or in-process.",
  "                     Default: $AIRLOCK_SANDBOX or workers",
  "  --registry URL     Plugin registry for `name@range` installs. Default: $AIRLOCK_REGISTRY_URL",
].join("\n");

export type SandboxMode = "workers" | "in-process";

/**
 * HostOptions from the shared options; `sandbox` overrides the mode (admin-only commands).
 * Without --data-dir the data dir follows the running host (see dataDirOption), except for the
 * commands that start one (`followRunning` false).
 */
export function hostOptionsFrom(
  parsed: Parsed,
  io: CliIO,
  sandbox?: SandboxMode,
  followRunning = true,
): HostOptions {
  const envMode = io.env.AIRLOCK_SANDBOX === "in-process" ? "in-process" : "workers";
  const mode = sandbox ?? enumOption(parsed, "sandbox", ["workers", "in-process"] as const, envMode);
  const options: HostOptions = { dataDir: dataDirOption(parsed, io, followRunning), sandbox: { mode } };
  const store = storeOption(parsed, io);
  if (store !== undefined) options.store = store;
  const registry = stringOption(parsed, "registry") ?? io.env.AIRLOCK_REGISTRY_URL;
  if (registry !== undefined) options.registryUrl = registry;
  // OAuth connect links made with no host running point where the operator says browsers go.
  const publicUrl = io.env.AIRLOCK_PUBLIC_URL;
  if (publicUrl !== undefined && publicUrl !== "") options.publicUrl = publicUrl;
  return options;
}

export function openHost(options: HostOptions): Promise<AirlockHost> {
  return createHost(options);
}

/** Opens the host, runs `body`, and closes the host whatever happens. */
export async function withHost<T>(options: HostOptions, body: (host: AirlockHost) => Promise<T>): Promise<T> {
  const host = await openHost(options);
  try {
    return await body(host);
  } finally {
    await host.close();
  }
}

/**
 * AIRLOCK_CLI_UNKNOWN_AGENT unless the agent exists; the error names the nearest existing slug
 * ("did you mean") when one is a likely typo, else how to create it.
 */
export async function requireAgent(
  host: Pick<AirlockHost, "getAgent" | "listAgents">,
  slug: string,
): Promise<void> {
  if ((await host.getAgent(slug)) !== null) return;
  const near = closest(
    slug,
    (await host.listAgents()).map((a) => a.slug),
  );
  throw cliError(
    "AIRLOCK_CLI_UNKNOWN_AGENT",
    near === undefined
      ? `no agent "${slug}" — \`airlock agents list\` lists them; \`airlock agents create ${slug}\` makes it`
      : `no agent "${slug}" — did you mean "${near}"?`,
  );
}
