// Test helpers for the CLI: run `main` in-process with captured output, or spawn the real
// `sdk/bin/airlock-plugin.ts` entry with Node 24 (the repo's pinned node when the test runner's
// is older).
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { main } from "../../src/cli/main.ts";

export const BIN = fileURLToPath(new URL("../../bin/airlock-plugin.ts", import.meta.url));
const PINNED_NODE = fileURLToPath(new URL("../../../node_modules/.bin/node", import.meta.url));

export function node24(): string {
  const major = Number(process.versions.node.split(".")[0]);
  if (major >= 24) return process.execPath;
  if (existsSync(PINNED_NODE)) return PINNED_NODE;
  throw new Error(
    `Node 24 is needed to spawn the CLI; this is ${process.version} and ${PINNED_NODE} is missing`,
  );
}

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

export async function runCli(
  args: string[],
  cwd: string,
  env: Record<string, string | undefined> = {},
): Promise<CliRun> {
  let stdout = "";
  let stderr = "";
  const code = await main(args, {
    stdout: (t) => {
      stdout += t;
    },
    stderr: (t) => {
      stderr += t;
    },
    env,
    cwd,
  });
  return { code, stdout, stderr };
}

export function spawnCli(args: string[], cwd: string): CliRun {
  const result = spawnSync(node24(), [BIN, ...args], { cwd, encoding: "utf8", timeout: 60_000 });
  if (result.error) throw result.error;
  return { code: result.status ?? -1, stdout: result.stdout, stderr: result.stderr };
}
