// The `airlock-registry` command line: `serve` and `token create`, on the dispatcher all three
// Airlock CLIs share (@airlock/sdk/cli-kit: "did you mean", one-line errors
// `error: AIRLOCK_…: what — what to do`, exit 0 done / 1 failed / 2 usage). The bin file and
// the host's `airlock registry serve` (which runs that bin as a child process, since host/ never
// imports registry/) both end here. Contract: `runRegistryCli(argv, io)` returns the exit status.

import { existsSync } from "node:fs";
import { join } from "node:path";
import { EXIT_STATUS_HELP, type OptionSpec, parseCommandArgs, runProgram } from "@airlock/sdk/cli-kit";
import { hasCode } from "@airlock/sdk/errors";
import { SDK_VERSION } from "@airlock/sdk/manifest";
import { registryError } from "./errors.ts";
import { startRegistry } from "./server.ts";
import { RegistryStorage } from "./storage.ts";

export interface RegistryCliIO {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  env: Readonly<Record<string, string | undefined>>;
}

export const REGISTRY_HELP = `airlock-registry ${SDK_VERSION} — the Airlock plugin registry

Usage:
  airlock-registry --version
  airlock-registry serve [--port 4873] [--host 127.0.0.1] [--data-dir DIR] [--public-url URL]
  airlock-registry token create --owner NAME [--label TEXT] [--data-dir DIR]

Commands:
  serve          Serve the registry (npm-style: GET /{name}, GET /{name}/-/{name}-{v}.tgz, PUT /{name}).
  token create   Issue a publish token for a publisher (printed once; only its hash is stored).
                 The first publisher of a namespace owns it; only that owner's tokens publish to it.

Options:
  --data-dir DIR    Index (registry.db) and tarballs. Default: $AIRLOCK_REGISTRY_DIR or ./.airlock-registry
  --port N          Listening port. Default 4873 (0 picks a free one).
  --host ADDR       Listening address. Default 127.0.0.1.
  --public-url URL  The URL clients use, for tarball links. Default: the request's origin.
  --owner NAME      The publisher a token acts for (^[a-z0-9][a-z0-9._-]{0,63}$).
  --label TEXT      A note stored with the token.

Example:
  airlock-registry token create --owner acme --data-dir ./reg
  airlock-registry serve --port 4873 --data-dir ./reg

${EXIT_STATUS_HELP}
`;

const usage = (message: string) => registryError("AIRLOCK_REGISTRY_USAGE", message);
const DATA_DIR: OptionSpec = { "data-dir": { type: "string" } };

function dataDirOf(values: Record<string, unknown>, io: RegistryCliIO): string {
  const dataDir =
    (values["data-dir"] as string | undefined) ?? io.env.AIRLOCK_REGISTRY_DIR ?? "./.airlock-registry";
  // A registry writes registry.db and tarballs/ into its data dir: never into a source folder.
  if (existsSync(join(dataDir, "package.json")) && !existsSync(join(dataDir, "registry.db"))) {
    throw registryError(
      "AIRLOCK_REGISTRY_DATA_DIR_INVALID",
      `${dataDir} holds a package.json, so it is a source folder, not registry data — pass another --data-dir`,
    );
  }
  return dataDir;
}

async function serve(args: readonly string[], io: RegistryCliIO): Promise<number> {
  const options: OptionSpec = {
    ...DATA_DIR,
    port: { type: "string" },
    host: { type: "string" },
    "public-url": { type: "string" },
  };
  const { values } = parseCommandArgs(args, options, 0, usage);
  const port = values.port === undefined ? 4873 : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw usage(`--port must be an integer 0-65535, got ${JSON.stringify(values.port)}`);
  const dataDir = dataDirOf(values, io);
  const host = (values.host as string | undefined) ?? "127.0.0.1";
  const publicUrl = values["public-url"] as string | undefined;
  const running = await startRegistry({
    dataDir,
    port,
    host,
    ...(publicUrl === undefined ? {} : { publicUrl }),
    onInternalError: (err) => io.stderr(`internal error: ${String((err as Error)?.stack ?? err)}\n`),
  }).catch((err: unknown) => {
    if (!hasCode(err, "EADDRINUSE")) throw err;
    throw registryError(
      "AIRLOCK_REGISTRY_PORT_IN_USE",
      `${host}:${port} is already in use — pass --port N (0 = any free port)`,
    );
  });
  io.stdout(`airlock-registry listening on ${running.url} (data: ${dataDir})\n`);
  await new Promise<void>((resolve) => {
    const stop = (): void => {
      running.close().then(resolve, (err: unknown) => {
        io.stderr(`error while closing: ${String(err)}\n`);
        resolve();
      });
    };
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
  });
  return 0;
}

function tokenCreate(args: readonly string[], io: RegistryCliIO): Promise<number> {
  const options: OptionSpec = { ...DATA_DIR, owner: { type: "string" }, label: { type: "string" } };
  const { values } = parseCommandArgs(args, options, 0, usage);
  const owner = values.owner as string | undefined;
  if (owner === undefined) throw usage("missing --owner NAME");
  const storage = new RegistryStorage(dataDirOf(values, io));
  try {
    const { token, record } = storage.createToken(owner, (values.label as string | undefined) ?? "");
    io.stdout(`${token}\n`);
    io.stderr(`token ${record.id} for owner "${record.owner}" (shown once; store it now)\n`);
  } finally {
    storage.close();
  }
  return Promise.resolve(0);
}

const SERVE_HELP = `Usage: airlock-registry serve [--port 4873] [--host 127.0.0.1] [--data-dir DIR] [--public-url URL]

Serves the registry (npm-style: GET /{name}, GET /{name}/-/{name}-{v}.tgz, PUT /{name}).

Options:
  --port N          Listening port. Default 4873 (0 picks a free one).
  --host ADDR       Listening address. Default 127.0.0.1.
  --data-dir DIR    Index (registry.db) and tarballs. Default: $AIRLOCK_REGISTRY_DIR or ./.airlock-registry
  --public-url URL  The URL clients use, for tarball links. Default: the request's origin.

Example:
  airlock-registry serve --port 4873 --data-dir ./reg
`;

const TOKEN_HELP = `Usage: airlock-registry token create --owner NAME [--label TEXT] [--data-dir DIR]

Issues a publish token for a publisher: printed once on stdout, only its hash is stored. The
first publisher of a namespace owns it; only that owner's tokens publish to it.

Options:
  --owner NAME      The publisher a token acts for (^[a-z0-9][a-z0-9._-]{0,63}$).
  --label TEXT      A note stored with the token.
  --data-dir DIR    Index (registry.db) and tarballs. Default: $AIRLOCK_REGISTRY_DIR or ./.airlock-registry

Example:
  airlock-registry token create --owner acme --data-dir ./reg
`;

export function runRegistryCli(argv: readonly string[], io: RegistryCliIO): Promise<number> {
  const program = {
    name: "airlock-registry",
    version: SDK_VERSION,
    about: "the Airlock plugin registry",
    codes: { usage: "AIRLOCK_REGISTRY_USAGE", unknownCommand: "AIRLOCK_REGISTRY_UNKNOWN_COMMAND" },
    commands: [
      {
        path: ["serve"],
        summary: "Serve the registry (npm-style: GET /{name}, GET /{name}/-/{name}-{v}.tgz, PUT /{name})",
        help: SERVE_HELP,
        run: serve,
      },
      {
        path: ["token", "create"],
        summary: "Issue a publish token for a publisher (printed once; only its hash is stored)",
        help: TOKEN_HELP,
        run: tokenCreate,
      },
    ],
  };
  // `airlock-registry --help` (and a bare `airlock-registry`, on stderr with exit 2) keeps its
  // long form: options and examples on one page.
  if (argv.length === 0) {
    io.stderr(REGISTRY_HELP);
    return Promise.resolve(2);
  }
  if (argv.length === 1 && (argv[0] === "--help" || argv[0] === "-h" || argv[0] === "help")) {
    io.stdout(REGISTRY_HELP);
    return Promise.resolve(0);
  }
  return runProgram(program, argv, io);
}
