// A small shell for the suites that run a page's commands as a newcomer would
// (quickstart.test.ts, path-install.test.ts): the `sh` blocks of a page, README "Set-up"'s
// `npm link` into a temp prefix, a fresh user's environment, and each line run by bash itself
// in a folder outside the checkout. Contract: a line runs unchanged but for what the caller's
// `rewrite` replaces (documented ports, ids a previous command printed); `npx X` must find X in
// the folder's node_modules/.bin (elsewhere npx would fetch an unrelated public package);
// `cd` and `export` change the shell's state; a daemon is stopped by its process group.
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { createServer } from "node:net";
import { homedir } from "node:os";
import { delimiter, join, resolve } from "node:path";
import { ROOT } from "./cli-support.ts";

/** The command lines of a Markdown page's ```sh blocks (comments and blank lines dropped). */
export function shLines(markdown: string): string[] {
  return [...markdown.matchAll(/```sh\n([\s\S]*?)```/g)].flatMap((m) =>
    (m[1] ?? "")
      .split("\n")
      .map((l) => l.replace(/\s+#.*$/, "").trim())
      .filter((l) => l !== "" && !l.startsWith("#")),
  );
}

/** README "Set-up"'s first block (`npm ci && npm start`, `npm test`). */
export function readmeFirstRun(): string[] {
  const readme = readFileSync(join(ROOT, "README.md"), "utf8");
  const block = /## Set-up[\s\S]*?```sh\n([\s\S]*?)```/.exec(readme)?.[1] ?? "";
  return shLines(`\`\`\`sh\n${block}\`\`\``);
}

/** README "Set-up": the block after "To run `airlock`…" (`npm link`, `airlock --version`). */
export function readmeSetup(): string[] {
  const readme = readFileSync(join(ROOT, "README.md"), "utf8");
  const block = /To run `airlock`[\s\S]*?```sh\n([\s\S]*?)```/.exec(readme)?.[1] ?? "";
  return shLines(`\`\`\`sh\n${block}\`\`\``);
}

/** The system's PATH without the checkout's or any node_modules' bin folders. */
export function systemPath(): string[] {
  return (process.env.PATH ?? "")
    .split(delimiter)
    .filter((dir) => dir !== "" && !dir.startsWith(ROOT) && !dir.includes("node_modules"));
}

/**
 * A fresh user's environment: HOME is `home`, nothing Airlock-specific is inherited (no
 * AIRLOCK_*, XDG_STATE_HOME, npm script variables, node_modules/.bin on PATH), `prefix`/bin (where
 * `npm link` puts the commands, npm_config_prefix as README shows) first on PATH. npm's cache
 * stays the machine's, so `npm install` does not download vitest again.
 */
export function freshEnv(home: string, prefix: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (value === undefined || /^(AIRLOCK_|npm_|XDG_STATE_HOME$|INIT_CWD$|VITEST|NODE_OPTIONS$)/i.test(name))
      continue;
    env[name] = value;
  }
  env.PATH = [join(prefix, "bin"), ...systemPath()].join(delimiter);
  env.HOME = home;
  env.npm_config_prefix = prefix;
  env.npm_config_cache = join(homedir(), ".npm");
  return env;
}

export function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once("error", fail);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => done(typeof address === "object" && address !== null ? address.port : 0));
    });
  });
}

export interface Proc {
  child: ChildProcess;
  out(): string;
  err(): string;
  closed: Promise<number | null>;
}

/** `line` run by bash (its own process group, so stop() ends what it started). */
export function bash(line: string, cwd: string, env: Record<string, string>): Proc {
  const child = spawn("bash", ["-c", line], { cwd, env, stdio: ["ignore", "pipe", "pipe"], detached: true });
  let out = "";
  let err = "";
  child.stdout?.on("data", (c: Buffer) => {
    out += c.toString("utf8");
  });
  child.stderr?.on("data", (c: Buffer) => {
    err += c.toString("utf8");
  });
  const closed = new Promise<number | null>((done, fail) => {
    child.once("error", fail);
    child.once("close", (status) => done(status));
  });
  return { child, out: () => out, err: () => err, closed };
}

export async function waitFor(proc: Proc, ready: RegExp, what: string, timeoutMs = 180_000): Promise<void> {
  let exited = false;
  void proc.closed.then(() => {
    exited = true;
  });
  const deadline = Date.now() + timeoutMs;
  while (!ready.test(proc.out())) {
    if (exited || Date.now() > deadline)
      throw new Error(
        `${what} ${exited ? "exited" : "timed out"} before it was ready\n${proc.out()}\n${proc.err()}`,
      );
    await new Promise((r) => setTimeout(r, 50));
  }
}

export async function stop(proc: Proc): Promise<void> {
  if (proc.child.exitCode !== null || proc.child.signalCode !== null || proc.child.pid === undefined) return;
  try {
    process.kill(-proc.child.pid, "SIGTERM");
  } catch (error) {
    if ((error as { code?: string }).code !== "ESRCH") throw error;
  }
  await proc.closed;
}

export interface Ran {
  line: string;
  cwd: string;
  out: string;
  err: string;
}

/** The shell's state: its folder and environment, what ran, and the daemons it left running. */
export class DocShell {
  cwd: string;
  readonly transcript: Ran[] = [];
  readonly daemons: Proc[] = [];

  readonly env: Record<string, string>;

  constructor(cwd: string, env: Record<string, string>) {
    this.cwd = cwd;
    this.env = env;
  }

  /** A `cd`, an `export`, or a command run to its end (a non-zero exit throws with its output). */
  async run(line: string): Promise<string> {
    const cd = /^cd\s+(\S+)$/.exec(line);
    if (cd) {
      this.cwd = resolve(this.cwd, (cd[1] as string).replace(/^~(?=\/|$)/, this.env.HOME ?? "~"));
      return "";
    }
    const exported = /^export\s+([A-Z_][A-Z0-9_]*)=(.*)$/.exec(line);
    if (exported) {
      const [, name, value] = exported as unknown as [string, string, string];
      const sub = /^\$\((.*)\)$/.exec(value);
      this.env[name] = sub ? (await this.run(sub[1] as string)).trim() : value;
      return "";
    }
    this.checkNpx(line);
    const proc = bash(line, this.cwd, this.env);
    const status = await proc.closed;
    this.transcript.push({ line, cwd: this.cwd, out: proc.out(), err: proc.err() });
    if (status !== 0)
      throw new Error(
        `\`${line}\` (in ${this.cwd}) exited ${status}\n--- stdout\n${proc.out()}\n--- stderr\n${proc.err()}`,
      );
    return proc.out();
  }

  /** A server kept running (a line ending in `&`, or one the caller knows runs until stopped). */
  async daemon(line: string, ready: RegExp, timeoutMs?: number): Promise<Proc> {
    const command = line.replace(/\s*&$/, "");
    this.checkNpx(command);
    const proc = bash(/[;&|]/.test(command) ? command : `exec ${command}`, this.cwd, this.env);
    this.daemons.push(proc);
    await waitFor(proc, ready, line, timeoutMs);
    return proc;
  }

  async stopAll(): Promise<void> {
    for (const d of this.daemons.reverse()) await stop(d);
  }

  private checkNpx(line: string): void {
    const npx = /^npx\s+(\S+)/.exec(line);
    if (npx && !existsSync(join(this.cwd, "node_modules", ".bin", npx[1] as string)))
      throw new Error(
        `npx would not find ${npx[1]} in ${this.cwd} (it would fetch a public package): ${line}`,
      );
  }
}
