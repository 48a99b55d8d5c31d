// `airlock registry serve` and `airlock registry token create`: the registry server run as
// the `airlock-registry` bin in a child process (host/ never imports registry/; the two talk
// over HTTP). Arguments pass through unchanged; SIGINT/SIGTERM are forwarded; the command
// returns the child's exit status.
import { spawn } from "node:child_process";
import { REGISTRY_BIN } from "../bootstrap/registry-process.ts";
import type { CliCommand, CliIO } from "../types.ts";

function runRegistryBin(args: readonly string[], io: CliIO): Promise<number> {
  const child = spawn(process.execPath, ["--no-node-snapshot", REGISTRY_BIN, ...args], {
    cwd: io.cwd,
    env: { ...io.env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout.on("data", (c: Buffer) => io.stdout(c.toString("utf8")));
  child.stderr.on("data", (c: Buffer) => io.stderr(c.toString("utf8")));
  const forward = (signal: NodeJS.Signals) => (): void => {
    child.kill(signal);
  };
  const onInt = forward("SIGINT");
  const onTerm = forward("SIGTERM");
  process.on("SIGINT", onInt);
  process.on("SIGTERM", onTerm);
  return new Promise((resolve) => {
    child.once("error", (err) => {
      io.stderr(`error: cannot start the registry: ${err.message}\n`);
      resolve(1);
    });
    child.once("close", (code, signal) => {
      process.off("SIGINT", onInt);
      process.off("SIGTERM", onTerm);
      resolve(code ?? (signal === "SIGINT" || signal === "SIGTERM" ? 0 : 1));
    });
  });
}

const serveCommand: CliCommand = {
  path: ["registry", "serve"],
  summary: "Serve a plugin registry (same as airlock-registry serve)",
  help: `Usage: airlock registry serve [--port 4873] [--host 127.0.0.1] [--data-dir DIR] [--public-url URL]

Serves an Airlock plugin registry: npm-style package documents (GET /<name>), tarballs
(GET /<name>/-/<name>-<version>.tgz) and publishing (PUT /<name> with a bearer token).
The first publisher of a namespace owns it; versions are immutable; reserved and
look-alike names are refused; every upload is validated (manifest, strict lint, integrity,
tarball safety, size caps). Index in SQLite, tarballs on disk by sha512.

Options:
  --data-dir DIR     Registry data. Default: $AIRLOCK_REGISTRY_DIR or ./.airlock-registry
  --port N           Default 4873 (0 picks a free port).
  --host ADDR        Default 127.0.0.1.
  --public-url URL   The URL clients use (for tarball links). Default: the request's origin.

Example:
  airlock registry token create --owner acme --data-dir ./reg
  airlock registry serve --port 4873 --data-dir ./reg
`,
  run: (args, io) => runRegistryBin(["serve", ...args], io),
};

const tokenCommand: CliCommand = {
  path: ["registry", "token", "create"],
  summary: "Issue a registry publish token for a publisher",
  help: `Usage: airlock registry token create --owner NAME [--label TEXT] [--data-dir DIR]

Prints a new publish token once (the registry stores only its hash). The owner is the
publisher identity: the first owner to publish a namespace owns it.

Options:
  --owner NAME       Publisher name (^[a-z0-9][a-z0-9._-]{0,63}$), required.
  --label TEXT       A note stored with the token.
  --data-dir DIR     Registry data. Default: $AIRLOCK_REGISTRY_DIR or ./.airlock-registry

Example:
  airlock registry token create --owner acme --data-dir ./reg
`,
  run: (args, io) => runRegistryBin(["token", "create", ...args], io),
};

export const registryCommands: CliCommand[] = [serveCommand, tokenCommand];
