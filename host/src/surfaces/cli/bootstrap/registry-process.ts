// Runs the local registry for `airlock start` as a child process (host/ never imports
// registry/: they talk over HTTP), on a loopback port, with its own data dir. The first start
// lets the OS pick the port and keeps it in `<dir>/registry-port`; later starts reuse it, so the
// registry URL that installed plugins record (and upgrade from) stays valid across restarts.
// Contract: `startLocalRegistry` resolves once the child prints its URL, with a publish token
// for the first-party owner (created once and kept, mode 0600, in the bootstrap dir); close()
// stops the child with SIGTERM and waits for it. A child that dies early rejects with
// AIRLOCK_BOOTSTRAP_REGISTRY_FAILED carrying its stderr.
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { bootstrapError } from "./errors.ts";

const execFileAsync = promisify(execFile);

/** The registry's bin, found through the workspace layout (a path, not an import). */
export const REGISTRY_BIN = fileURLToPath(
  new URL("../../../../../registry/bin/airlock-registry.ts", import.meta.url),
);

export interface LocalRegistry {
  url: string;
  /** Publish token of the first-party owner. */
  token: string;
  close(): Promise<void>;
}

const NODE_ARGS = ["--no-node-snapshot", REGISTRY_BIN];

async function publishToken(registryDir: string, tokenFile: string, owner: string): Promise<string> {
  if (existsSync(tokenFile)) return (await readFile(tokenFile, "utf8")).trim();
  try {
    const { stdout } = await execFileAsync(process.execPath, [
      ...NODE_ARGS,
      "token",
      "create",
      "--owner",
      owner,
      "--label",
      "airlock start bootstrap",
      "--data-dir",
      registryDir,
    ]);
    const token = stdout.trim();
    await writeFile(tokenFile, `${token}\n`, { mode: 0o600 });
    return token;
  } catch (cause) {
    throw bootstrapError("AIRLOCK_BOOTSTRAP_REGISTRY_FAILED", "could not create the registry publish token", {
      cause,
    });
  }
}

function waitForUrl(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = "";
    let err = "";
    const onExit = (code: number | null) =>
      reject(
        bootstrapError("AIRLOCK_BOOTSTRAP_REGISTRY_FAILED", `the local registry exited (status ${code})`, {
          details: { stderr: err.slice(-2000) },
        }),
      );
    child.once("exit", onExit);
    child.stderr?.on("data", (c: Buffer) => {
      err += c.toString("utf8");
    });
    child.stdout?.on("data", (c: Buffer) => {
      out += c.toString("utf8");
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m?.[1]) {
        child.off("exit", onExit);
        resolve(m[1].replace(/\/$/, ""));
      }
    });
  });
}

export const PORT_FILE = "registry-port";

export async function startLocalRegistry(options: { dir: string; owner: string }): Promise<LocalRegistry> {
  const registryDir = join(options.dir, "registry");
  await mkdir(registryDir, { recursive: true });
  const token = await publishToken(registryDir, join(options.dir, "publish-token"), options.owner);
  const portFile = join(options.dir, PORT_FILE);
  const kept = existsSync(portFile) ? (await readFile(portFile, "utf8")).trim() : "0";
  const child = spawn(
    process.execPath,
    [...NODE_ARGS, "serve", "--port", kept, "--host", "127.0.0.1", "--data-dir", registryDir],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  let url: string;
  try {
    url = await waitForUrl(child);
  } catch (error) {
    const stderr = String((error as { details?: { stderr?: string } }).details?.stderr ?? "");
    if (kept !== "0" && stderr.includes("EADDRINUSE")) {
      throw bootstrapError(
        "AIRLOCK_BOOTSTRAP_REGISTRY_FAILED",
        `the local registry's port ${kept} is in use; installed plugins upgrade from that URL, so free the port ` +
          `(or delete ${portFile} to pick a new one, then reinstall them)`,
        { cause: error },
      );
    }
    throw error;
  }
  await writeFile(portFile, `${new URL(url).port}\n`);
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null) resolve();
    else child.once("exit", () => resolve());
  });
  return {
    url,
    token,
    async close() {
      if (child.exitCode === null) child.kill("SIGTERM");
      await exited;
    },
  };
}
