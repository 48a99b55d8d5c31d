// README "Set-up": `npm link` in the checkout puts `airlock`, `airlock-plugin` and
// `airlock-registry` on PATH, and they run from any folder for a fresh user. The link goes to a
// temp prefix (npm_config_prefix, as the README shows for a prefix that needs root), so the
// machine's global prefix is untouched. PATH is the system's only (no node_modules/.bin, so the
// `node` found first may be older than 24: the launchers bring the checkout's Node 24). Then the
// client entries printed by `airlock mcp --help` and `airlock-plugin dev --help` are pasted as
// printed into a stdio MCP client (the MCP SDK v2 client) started with a bare environment in
// another folder. docs/quickstart.md's run (quickstart.test.ts) links the same way (doc-shell.ts).
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT } from "./cli-support.ts";
import { DocShell, freshEnv, readmeFirstRun, readmeSetup, systemPath } from "./doc-shell.ts";

const STEP = 180_000;
const VERSION = (JSON.parse(readFileSync(join(ROOT, "sdk/package.json"), "utf8")) as { version: string })
  .version;

interface Ran {
  status: number | null;
  stdout: string;
  stderr: string;
}

function run(command: string, args: string[], cwd: string, env: Record<string, string>): Promise<Ran> {
  return new Promise((done, fail) => {
    const child = spawn(command, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => {
      stdout += c.toString("utf8");
    });
    child.stderr.on("data", (c: Buffer) => {
      stderr += c.toString("utf8");
    });
    child.once("error", fail);
    child.once("close", (status) => done({ status, stdout, stderr }));
  });
}

async function toolsOf(entry: { command: string; args: string[] }, cwd: string): Promise<string[]> {
  const client = new Client({ name: "pasted-entry", version: "1.0.0" });
  await client.connect(
    new StdioClientTransport({ ...entry, cwd, env: { HOME: cwd, PATH: "/usr/bin:/bin" }, stderr: "ignore" }),
  );
  try {
    return (await client.listTools()).tools.map((t) => t.name);
  } finally {
    await client.close();
  }
}

describe("README set-up: the CLIs on PATH", () => {
  let work = "";
  let env: Record<string, string> = {};
  let elsewhere = "";

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), "airlock-path-"));
    elsewhere = join(work, "elsewhere");
    await mkdir(join(work, "home"), { recursive: true });
    await mkdir(elsewhere, { recursive: true });
    env = {
      HOME: join(work, "home"),
      PATH: [join(work, "prefix", "bin"), ...systemPath()].join(delimiter),
      npm_config_prefix: join(work, "prefix"),
      npm_config_cache: join(process.env.HOME ?? tmpdir(), ".npm"),
    };
  });
  afterAll(async () => {
    if (work) await rm(work, { recursive: true, force: true });
  });

  it("links the three commands with the README's npm link", { timeout: STEP }, async () => {
    const [link, version] = readmeSetup();
    expect(link).toBe("npm link");
    expect(version).toBe("airlock --version");
    const linked = await run("npm", ["link", "--no-audit", "--no-fund"], ROOT, env);
    expect(linked.status, linked.stderr).toBe(0);
  });

  it("runs airlock, airlock-plugin and airlock-registry from a folder outside the checkout", async () => {
    for (const bin of ["airlock", "airlock-plugin", "airlock-registry"]) {
      const r = await run(bin, ["--version"], elsewhere, env);
      expect({ bin, status: r.status, out: r.stdout.trim(), err: r.stderr }).toEqual({
        bin,
        status: 0,
        out: VERSION,
        err: "",
      });
    }
  });

  it("serves from PATH and stops cleanly on SIGTERM sent to the command", { timeout: STEP }, async () => {
    const args = ["serve", "--data-dir", join(work, "served"), "--port", "0", "--sandbox", "in-process"];
    const child = spawn("airlock", args, { cwd: elsewhere, env, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stderr.on("data", (c: Buffer) => {
      err += c.toString("utf8");
    });
    const closed = new Promise<number | null>((done) => child.once("close", (status) => done(status)));
    await new Promise<void>((ready) =>
      child.stdout.on("data", (c: Buffer) => {
        out += c.toString("utf8");
        if (out.includes("Press Ctrl+C")) ready();
      }),
    );
    expect(out).toMatch(/Agents:\s+none yet: `airlock agents create NAME`/);
    child.kill("SIGTERM");
    expect(await closed).toBe(0);
    expect(err).toContain("airlock serve: shutting down");
  });

  it("prints an airlock mcp client entry that runs as pasted", { timeout: STEP }, async () => {
    const data = join(work, "data");
    const created = await run("airlock", ["agents", "create", "example", "--data-dir", data], elsewhere, env);
    expect(created.status, created.stderr).toBe(0);
    const help = await run("airlock", ["mcp", "--help"], elsewhere, { ...env, AIRLOCK_DATA_DIR: data });
    const line = help.stdout.trim().split("\n").at(-1) ?? "";
    const entry = JSON.parse(line) as { command: string; args: string[] };
    expect(entry.args).toEqual(expect.arrayContaining(["mcp", "--agent", "example", "--data-dir", data]));
    expect(Array.isArray(await toolsOf(entry, tmpdir()))).toBe(true);
  });

  it("prints an airlock-plugin dev client entry that runs as pasted", { timeout: STEP }, async () => {
    const plugin = join(ROOT, "plugins", "notes");
    const help = await run("airlock-plugin", ["dev", "--help"], plugin, env);
    const line = help.stdout.trim().split("\n").at(-2) ?? "";
    const entry = JSON.parse(line) as { command: string; args: string[] };
    expect(entry.args).toContain(plugin);
    expect(await toolsOf(entry, tmpdir())).toContain("searchNotes");
  });
});

// README "Set-up"'s first block in a fresh clone of this repository's committed tree (HEAD), for a
// fresh user: `npm ci && npm start` runs as printed and the host it starts serves the example
// agent's tools to the banner's first client config. Ports aside (AIRLOCK_PORT=0, so parallel
// runs never collide), and npm prefers its cache (npm_config_prefer_offline) so the run does not
// depend on the registry. `npm test`, the block's other line, is the whole suite and is not run.
describe("README set-up: a fresh clone", () => {
  let work = "";
  let shell: DocShell | undefined;
  afterAll(async () => {
    await shell?.stopAll();
    if (work) await rm(work, { recursive: true, force: true });
  });

  it("runs npm ci && npm start as printed, and the host serves tools", { timeout: 600_000 }, async () => {
    const [first, test] = readmeFirstRun();
    expect(first).toBe("npm ci && npm start");
    expect(test).toBe("npm test");
    work = await mkdtemp(join(tmpdir(), "airlock-clone-"));
    await mkdir(join(work, "home"), { recursive: true });
    const cloned = await run("git", ["clone", "--quiet", ROOT, join(work, "airlock")], work, {
      PATH: process.env.PATH ?? "",
    });
    expect(cloned.status, cloned.stderr).toBe(0);
    const env = freshEnv(join(work, "home"), join(work, "prefix"));
    env.AIRLOCK_PORT = "0";
    env.npm_config_prefer_offline = "true";
    shell = new DocShell(join(work, "airlock"), env);
    const host = await shell.daemon(first as string, /Press Ctrl\+C/, 540_000);
    const banner = host.out();
    expect(banner).toContain(`(data: ${join(work, "airlock", ".airlock-data")})`);
    const config = /Cursor[^\n]*:\n\s+(\{[^\n]+\})/.exec(banner)?.[1] ?? "{}";
    const entry = Object.values(
      (JSON.parse(config) as { mcpServers: Record<string, { url: string; headers: Record<string, string> }> })
        .mcpServers,
    )[0];
    const client = new Client({ name: "fresh-clone", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(entry?.url as string), {
        requestInit: { headers: entry?.headers ?? {} },
      }),
    );
    try {
      expect((await client.listTools()).tools.map((t) => t.name)).toContain("notes__searchNotes");
    } finally {
      await client.close();
    }
  });
});
