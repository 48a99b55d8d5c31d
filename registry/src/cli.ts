// The `airlock-registry` command line: `serve` and `token create`. The bin file and the host's
// `airlock registry serve` (which runs that bin as a child process, since host/ never imports
// registry/) both end here. Contract: `runRegistryCli(argv, io)` returns the exit status.

import { existsSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
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
`;

export async function runRegistryCli(argv: readonly string[], io: RegistryCliIO): Promise<number> {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (err) {
    io.stderr(`${(err as Error).message}\n\n${REGISTRY_HELP}`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.version === true) {
    io.stdout(`${SDK_VERSION}\n`);
    return 0;
  }
  if (values.help === true || positionals.length === 0) {
    io.stdout(REGISTRY_HELP);
    return positionals.length === 0 && values.help !== true ? 2 : 0;
  }
  const dataDir = values["data-dir"] ?? io.env.AIRLOCK_REGISTRY_DIR ?? "./.airlock-registry";
  const command = positionals.join(" ");
  try {
    // A registry writes registry.db and tarballs/ into its data dir: never into a source folder.
    if (existsSync(join(dataDir, "package.json")) && !existsSync(join(dataDir, "registry.db"))) {
      throw registryError(
        "AIRLOCK_REGISTRY_DATA_DIR_INVALID",
        `${dataDir} holds a package.json, so it is a source folder, not registry data; pass another --data-dir`,
      );
    }
    if (command === "serve") {
      const port = values.port === undefined ? 4873 : Number(values.port);
      if (!Number.isInteger(port) || port < 0 || port > 65535) {
        io.stderr(`--port must be an integer 0-65535, got "${values.port}"\n`);
        return 2;
      }
      const running = await startRegistry({
        dataDir,
        port,
        host: values.host ?? "127.0.0.1",
        ...(values["public-url"] === undefined ? {} : { publicUrl: values["public-url"] }),
        onInternalError: (err) => io.stderr(`internal error: ${String((err as Error)?.stack ?? err)}\n`),
      }).catch((err: unknown) => {
        if (!hasCode(err, "EADDRINUSE")) throw err;
        throw registryError(
          "AIRLOCK_REGISTRY_PORT_IN_USE",
          `${values.host ?? "127.0.0.1"}:${port} is already in use; pass --port N (0 = any free port)`,
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
    if (command === "token create") {
      if (values.owner === undefined) {
        io.stderr("token create needs --owner NAME\n");
        return 2;
      }
      const storage = new RegistryStorage(dataDir);
      try {
        const { token, record } = storage.createToken(values.owner, values.label ?? "");
        io.stdout(`${token}\n`);
        io.stderr(`token ${record.id} for owner "${record.owner}" (shown once; store it now)\n`);
      } finally {
        storage.close();
      }
      return 0;
    }
    io.stderr(`unknown command "${command}"\n\n${REGISTRY_HELP}`);
    return 2;
  } catch (err) {
    io.stderr(hasCode(err) ? `error: ${err.code}: ${err.message}\n` : `error: ${String(err)}\n`);
    return 1;
  }
}

function parse(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    allowPositionals: true,
    options: {
      help: { type: "boolean", short: "h" },
      version: { type: "boolean", short: "v" },
      port: { type: "string" },
      host: { type: "string" },
      "data-dir": { type: "string" },
      "public-url": { type: "string" },
      owner: { type: "string" },
      label: { type: "string" },
    },
  });
}
