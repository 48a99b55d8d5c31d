// Runs the real CLIs the way a user would, for the end-to-end suites: each command is a child
// process on Node 24 (`process.execPath`, which is Node 24 inside vitest) with --no-node-snapshot.
// Contract: `cli()` resolves with the exit status and output and never throws for a non-zero
// status (the test asserts it); `daemon()` resolves once a line matches, and stop() sends
// SIGTERM and waits for the exit, so no test leaves a process behind.
import { type ChildProcess, spawn } from "node:child_process";
import { resolve } from "node:path";

export const ROOT = resolve(import.meta.dirname, "../..");
export const BIN = {
  airlock: resolve(ROOT, "host/bin/airlock.ts"),
  "airlock-plugin": resolve(ROOT, "sdk/bin/airlock-plugin.ts"),
  "airlock-registry": resolve(ROOT, "registry/bin/airlock-registry.ts"),
} as const;
export type BinName = keyof typeof BIN;

export interface CliResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  cwd?: string;
  env?: Record<string, string>;
}

function child(bin: BinName, args: readonly string[], options: RunOptions): ChildProcess {
  return spawn(process.execPath, ["--no-node-snapshot", BIN[bin], ...args], {
    cwd: options.cwd ?? ROOT,
    env: { ...process.env, NO_COLOR: "1", ...options.env },
    stdio: ["ignore", "pipe", "pipe"],
  });
}

export function cli(bin: BinName, args: readonly string[], options: RunOptions = {}): Promise<CliResult> {
  return new Promise((ok, fail) => {
    const proc = child(bin, args, options);
    let stdout = "";
    let stderr = "";
    proc.stdout?.on("data", (c: Buffer) => {
      stdout += c.toString("utf8");
    });
    proc.stderr?.on("data", (c: Buffer) => {
      stderr += c.toString("utf8");
    });
    proc.once("error", fail);
    proc.once("close", (status) => ok({ status, stdout, stderr }));
  });
}

/** Like cli() but fails the test with the command's output when it does not exit 0. */
export async function ok(
  bin: BinName,
  args: readonly string[],
  options: RunOptions = {},
): Promise<CliResult> {
  const r = await cli(bin, args, options);
  if (r.status !== 0) {
    throw new Error(
      `${bin} ${args.join(" ")} exited ${r.status}\n--- stdout\n${r.stdout}\n--- stderr\n${r.stderr}`,
    );
  }
  return r;
}

export interface Daemon {
  /** Everything printed on stdout so far. */
  output(): string;
  stop(): Promise<void>;
}

/** Starts a long-running command; resolves once stdout matches `ready` (rejects if it exits first). */
export function daemon(
  bin: BinName,
  args: readonly string[],
  ready: RegExp,
  options: RunOptions = {},
): Promise<Daemon> {
  const proc = child(bin, args, options);
  let stdout = "";
  let stderr = "";
  const exited = new Promise<void>((done) => proc.once("close", () => done()));
  const handle: Daemon = {
    output: () => stdout,
    async stop() {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill("SIGTERM");
      await exited;
    },
  };
  return new Promise((okay, fail) => {
    const onClose = (status: number | null) =>
      fail(new Error(`${bin} ${args.join(" ")} exited ${status} before it was ready\n${stdout}\n${stderr}`));
    proc.once("close", onClose);
    proc.stderr?.on("data", (c: Buffer) => {
      stderr += c.toString("utf8");
    });
    proc.stdout?.on("data", (c: Buffer) => {
      stdout += c.toString("utf8");
      if (ready.test(stdout)) {
        proc.off("close", onClose);
        okay(handle);
      }
    });
  });
}
