// Runs every command of docs/quickstart.md's `sh` blocks, in order and unchanged but for ports,
// as a new user would: the host's commands in a checkout, the author's in a project under ~,
// outside the repository. The doc is the script: change one and the other fails.
// The small shell here runs what the doc writes:
// - `npm start` in the checkout is the checkout's `airlock start` (checked below); `npx <bin>`
//   in the checkout is the checkout's bin on Node 24, as npx resolves it there;
// - in a project folder, `npx <bin>` and `npm install` are the real npx and npm, which resolve
//   the project's own node_modules/.bin (so its `node` 24 and its file:-linked SDK);
// - `cd`, `export` (also `VAR=$(command)`), `~` and a trailing `&` (a server kept running) work
//   as in a shell; documented ports (4480, 4873) are replaced by free ones.
// The environment is a fresh user's: HOME is a new temp folder (so ~/.local/state/airlock is
// empty), and nothing Airlock-specific is inherited (no AIRLOCK_*, no XDG_STATE_HOME, no npm
// script variables, no repository node_modules/.bin on PATH). The one addition: npm's cache
// stays the machine's (npm_config_cache), so `npm install` does not download vitest again.
// The "checkout" working directory is a temp folder too (the bins are this repository's), so
// the host's `.airlock-data` never lands in the repository.
// Then an MCP client checks what the guide promises: the author's tool is served to `example`.
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { homedir, tmpdir } from "node:os";
import { delimiter, join, resolve } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, describe, expect, it } from "vitest";
import { BIN, type BinName, ROOT } from "./cli-support.ts";

const DOC = readFileSync(join(ROOT, "docs/quickstart.md"), "utf8");
/** The sample banner the page shows (its ```text block that starts with "Airlock "). */
const SAMPLE_BANNER = /```text\n(Airlock [\s\S]*?)```/.exec(DOC)?.[1] ?? "";

/**
 * The real banner as the page prints it: this run's folders, ports, tokens and key id replaced by
 * the page's placeholders (everything else, the layout included, must be equal).
 */
function asDocumented(banner: string, places: { checkout: string; home: string; port: string }): string {
  const registryPort = /Local registry:\s+http:\/\/127\.0\.0\.1:(\d+)/.exec(banner)?.[1] ?? "";
  return banner
    .replaceAll(places.checkout, "/path/to/airlock")
    .replaceAll(ROOT, "/path/to/airlock")
    .replaceAll(places.home, "~")
    .replaceAll(`127.0.0.1:${places.port}`, "127.0.0.1:4480")
    .replaceAll(`127.0.0.1:${registryPort}`, "127.0.0.1:43117")
    .replace(/alk_(op|ag)_[A-Za-z0-9_-]+/g, "alk_$1_…")
    .replace(/SHA256:[A-Za-z0-9+/=]+/g, "SHA256:…");
}
const COMMANDS = [...DOC.matchAll(/```sh\n([\s\S]*?)```/g)].flatMap((m) =>
  (m[1] ?? "").split("\n").filter((line) => line.trim() !== "" && !line.trim().startsWith("#")),
);

function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once("error", fail);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => done(typeof address === "object" && address !== null ? address.port : 0));
    });
  });
}

/** A fresh user's environment (see the header). */
function freshEnv(home: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (value === undefined || /^(AIRLOCK_|npm_|XDG_STATE_HOME$|INIT_CWD$|VITEST|NODE_OPTIONS$)/.test(name))
      continue;
    env[name] = value;
  }
  env.PATH = (process.env.PATH ?? "")
    .split(delimiter)
    .filter((dir) => !dir.startsWith(ROOT) && !dir.includes("node_modules"))
    .join(delimiter);
  env.HOME = home;
  env.npm_config_cache = join(homedir(), ".npm");
  return env;
}

interface Proc {
  child: ChildProcess;
  out(): string;
  err(): string;
  closed: Promise<number | null>;
}

function start(command: string, args: string[], cwd: string, env: Record<string, string>): Proc {
  const child = spawn(command, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"], detached: true });
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

async function waitFor(proc: Proc, ready: RegExp, what: string): Promise<void> {
  let exited = false;
  void proc.closed.then(() => {
    exited = true;
  });
  const deadline = Date.now() + 180_000;
  while (!ready.test(proc.out())) {
    if (exited || Date.now() > deadline)
      throw new Error(
        `${what} ${exited ? "exited" : "timed out"} before it was ready\n${proc.out()}\n${proc.err()}`,
      );
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function stop(proc: Proc): Promise<void> {
  if (proc.child.exitCode !== null || proc.child.signalCode !== null || proc.child.pid === undefined) return;
  try {
    process.kill(-proc.child.pid, "SIGTERM");
  } catch (error) {
    if ((error as { code?: string }).code !== "ESRCH") throw error;
  }
  await proc.closed;
}

describe("docs/quickstart.md", () => {
  const daemons: Proc[] = [];
  let work = "";
  afterAll(async () => {
    for (const d of daemons.reverse()) await stop(d);
    if (work) await rm(work, { recursive: true, force: true });
  });

  it("shows commands, and npm start is airlock start", () => {
    expect(COMMANDS.length).toBeGreaterThan(15);
    const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
      scripts: { start: string };
    };
    expect(pkg.scripts.start).toBe("airlock start");
  });

  it(
    "runs every documented command as written, outside the repository, and the author's tool then answers an MCP client",
    { timeout: 420_000 },
    async () => {
      work = await mkdtemp(join(tmpdir(), "airlock-quickstart-"));
      const home = join(work, "home");
      const checkout = join(work, "checkout");
      await mkdir(home, { recursive: true });
      await mkdir(checkout, { recursive: true });
      const ports = new Map([
        ["4480", String(await freePort())],
        ["4873", String(await freePort())],
      ]);
      const env = freshEnv(home);
      const transcript: Array<{ line: string; out: string; err: string }> = [];
      let cwd = checkout;
      const expand = (word: string) =>
        word
          .replace(/^~(?=\/|$)/, home)
          .replace(/\$([A-Z_][A-Z0-9_]*)/g, (_, name: string) => env[name] ?? "")
          .replace(/\b(4480|4873)\b/g, (p) => ports.get(p) ?? p);
      /** How the line's program is started from `cwd` (see the header). */
      const invocation = (line: string): { command: string; args: string[] } => {
        const words = line.trim().split(/\s+/).map(expand);
        const [program, first, ...rest] = words as [string, string, ...string[]];
        if (program === "npm" && first === "start") {
          expect(cwd, "npm start runs in the checkout").toBe(checkout);
          const args = ["--no-node-snapshot", BIN.airlock, "start", "--port", ports.get("4480") as string];
          return { command: process.execPath, args };
        }
        if (program === "npm" && first === "install") return { command: "npm", args: words.slice(1) };
        if (program !== "npx") throw new Error(`the quickstart runner cannot run: ${line}`);
        if (existsSync(join(cwd, "node_modules", ".bin", first)))
          return { command: "npx", args: words.slice(1) };
        if (cwd === checkout && first in BIN)
          return { command: process.execPath, args: ["--no-node-snapshot", BIN[first as BinName], ...rest] };
        throw new Error(`npx would not find ${first} in ${cwd}: ${line}`);
      };
      const run = async (line: string): Promise<string> => {
        const { command, args } = invocation(line);
        const proc = start(command, args, cwd, env);
        const status = await proc.closed;
        transcript.push({ line, out: proc.out(), err: proc.err() });
        if (status !== 0)
          throw new Error(
            `\`${line}\` (in ${cwd}) exited ${status}\n--- stdout\n${proc.out()}\n--- stderr\n${proc.err()}`,
          );
        return proc.out();
      };

      for (const raw of COMMANDS) {
        const line = raw.trim();
        const cd = /^cd\s+(\S+)$/.exec(line);
        const exported = /^export\s+([A-Z_][A-Z0-9_]*)=(.*)$/.exec(line);
        if (cd) {
          cwd = resolve(cwd, expand(cd[1] as string));
        } else if (exported) {
          const [, name, value] = exported as unknown as [string, string, string];
          const sub = /^\$\((.*)\)$/.exec(value);
          env[name] = sub ? (await run(sub[1] as string)).trim() : expand(value);
        } else if (line.endsWith("&") || line === "npm start") {
          const { command, args } = invocation(line.replace(/&$/, ""));
          const proc = start(command, args, cwd, env);
          daemons.push(proc);
          await waitFor(proc, line === "npm start" ? /Press Ctrl\+C/ : /listening on/, line);
        } else {
          await run(line);
        }
      }

      // The author's project lived outside the repository and got the SDK from the checkout.
      const project = join(home, "hello");
      expect(project.startsWith(ROOT)).toBe(false);
      const pkg = JSON.parse(readFileSync(join(project, "package.json"), "utf8")) as {
        dependencies: Record<string, string>;
      };
      expect(pkg.dependencies["@airlock/sdk"]).toBe(`file:${join(ROOT, "sdk")}`);
      // `airlock install` from ~/hello acted on the running host, not on a new ~/hello/.airlock-data.
      const install = transcript.find((t) => t.line.startsWith("npx airlock install"));
      expect(install?.err).toMatch(
        /^airlock: host at http:\/\/127\.0\.0\.1:\d+ \(data: .*\/checkout\/\.airlock-data\)$/m,
      );
      expect(existsSync(join(project, ".airlock-data"))).toBe(false);
      expect(existsSync(join(ROOT, "registry", "registry.db"))).toBe(false);

      const banner = daemons[0]?.out() ?? "";
      // The page's sample banner is this banner (run the test, paste what it prints on a failure).
      expect(asDocumented(banner, { checkout, home, port: ports.get("4480") as string })).toBe(SAMPLE_BANNER);
      // The operator's commands changed the running host (through its admin API).
      const adminUrl = /Admin API:\s+(\S+)\/api/.exec(banner)?.[1] ?? "";
      const operator = /Operator token:\s+(\S+)/.exec(banner)?.[1] ?? "";
      const api = async (path: string) =>
        (await (
          await fetch(`${adminUrl}${path}`, { headers: { authorization: `Bearer ${operator}` } })
        ).json()) as {
          agents?: Array<{ slug: string; knowledgeLevel: string }>;
          secrets?: Array<{ key: string; set: boolean }>;
        };
      expect((await api("/api/agents")).agents?.find((a) => a.slug === "example")?.knowledgeLevel).toBe(
        "manage",
      );
      expect((await api("/api/agents/example/secrets")).secrets?.find((x) => x.key === "api_key")?.set).toBe(
        true,
      );

      const mcpUrl = /MCP \(example\):\s+(\S+)/.exec(banner)?.[1] ?? "";
      const token = /MCP \(example\):[^\n]*\n\s+agent token:\s+(\S+)/.exec(banner)?.[1] ?? "";
      const client = new Client({ name: "quickstart", version: "1.0.0" });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(mcpUrl), {
          requestInit: { headers: { authorization: `Bearer ${token}` } },
        }),
      );
      try {
        const names = (await client.listTools()).tools.map((t) => t.name);
        expect(names).toEqual(expect.arrayContaining(["hello__greet", "notes__searchNotes"]));
        const r = await client.callTool({ name: "hello__greet", arguments: { name: "Docs", excited: null } });
        expect(r.content).toEqual([{ type: "text", text: "Hello, Docs." }]);
      } finally {
        await client.close();
      }
    },
  );
});
