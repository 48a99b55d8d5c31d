// The processes the conformance runner drives, each started the way its user would start it:
// `airlock-plugin dev --http 0` (a plugin author), `airlock install/agents/serve` on a fresh
// data directory (an operator), and the pinned `conformance server` CLI (CI). Each serving
// process sits behind a header proxy that adds its bearer token, because the suite sends none.
// Contract: every start returns a `close()` that stops what it started (SIGTERM, then waits);
// `runConformance` resolves with each scenario's checks and never throws for failing checks.
import { spawn } from "node:child_process";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { BIN, ok, ROOT } from "../../e2e/cli-support.ts";
import { type HeaderProxy, startHeaderProxy } from "./header-proxy.ts";

export const PLUGIN_DIR = resolve(ROOT, "test/conformance/mcp-plugin");
const CONFORMANCE = resolve(ROOT, "node_modules/@modelcontextprotocol/conformance/dist/index.js");

/** One check as the suite writes it to `<out>/server-<scenario>-<time>/checks.json`. */
export interface Check {
  id: string;
  status: "SUCCESS" | "FAILURE" | "WARNING" | "INFO" | "SKIPPED";
  errorMessage?: string;
  details?: Record<string, unknown>;
}

export interface Endpoint {
  /** The proxy's URL: what the suite is pointed at. */
  url: string;
  close(): Promise<void>;
}

function behind(proxy: HeaderProxy, stop: () => Promise<void>): Endpoint {
  return {
    url: proxy.url,
    async close() {
      await proxy.close();
      await stop();
    },
  };
}

function field(text: string, pattern: RegExp): string {
  const value = pattern.exec(text)?.[1];
  if (value === undefined) throw new Error(`no ${pattern} in:\n${text}`);
  return value;
}

interface Served {
  /** Everything the process printed (stdout and stderr) until it was ready. */
  text: string;
  stop(): Promise<void>;
}

/** Starts `node --no-node-snapshot <script> ...args`; resolves once its output matches `ready`. */
function serve(script: string, args: string[], ready: RegExp): Promise<Served> {
  const child = spawn(process.execPath, ["--no-node-snapshot", script, ...args], {
    cwd: ROOT,
    env: { ...process.env, NO_COLOR: "1" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const exited = new Promise<void>((done) => child.once("close", () => done()));
  let text = "";
  return new Promise((okay, fail) => {
    const early = (status: number | null) =>
      fail(new Error(`${args.join(" ")} exited ${status} before it was ready:\n${text}`));
    child.once("close", early);
    const watch = (chunk: Buffer) => {
      text += chunk.toString("utf8");
      if (!ready.test(text)) return;
      child.off("close", early);
      child.stdout.off("data", watch);
      child.stderr.off("data", watch);
      child.stdout.resume();
      child.stderr.resume();
      okay({
        text,
        async stop() {
          if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
          await exited;
        },
      });
    };
    child.stdout.on("data", watch);
    child.stderr.on("data", watch);
  });
}

/** Runs `node <script> ...args` to its end; resolves with its output whatever its status. */
function run(
  script: string,
  args: string[],
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [script, ...args], {
    cwd: ROOT,
    env: { ...process.env, NO_COLOR: "1" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (c: Buffer) => {
    stdout += c.toString("utf8");
  });
  child.stderr.on("data", (c: Buffer) => {
    stderr += c.toString("utf8");
  });
  return new Promise((done, fail) => {
    child.once("error", fail);
    child.once("close", (status) => done({ status, stdout, stderr }));
  });
}

/** `airlock-plugin dev <plugin> --http 0`: the plugin under its bare tool names. */
export async function startPluginDev(pluginDir = PLUGIN_DIR): Promise<Endpoint> {
  const dev = await serve(BIN["airlock-plugin"], ["dev", pluginDir, "--http", "0"], /token:\s+\S+/);
  const text = dev.text;
  const proxy = await startHeaderProxy(field(text, /MCP endpoint: (\S+)/), {
    authorization: `Bearer ${field(text, /token:\s+(\S+)/)}`,
  });
  return behind(proxy, () => dev.stop());
}

/** A host as an operator sets it up: the plugin packed and installed, its tools enabled for one agent, `airlock serve`. */
export async function startAgentHost(agent: string, pluginDir = PLUGIN_DIR): Promise<Endpoint> {
  const work = await mkdtemp(join(tmpdir(), "airlock-mcp-conformance-"));
  const dataDir = join(work, "data");
  try {
    await ok("airlock-plugin", ["build", pluginDir]);
    const packed = await ok("airlock-plugin", ["pack", pluginDir, "--out", work]);
    const tarball = (await readdir(work)).find((f) => f.endsWith(".tgz"));
    if (tarball === undefined) throw new Error(`airlock-plugin pack wrote no .tgz:\n${packed.stdout}`);
    const d = ["--data-dir", dataDir];
    await ok("airlock", ["install", join(work, tarball), "--allow-unsigned", ...d]);
    await ok("airlock", ["agents", "create", agent, ...d]);
    const manifest = JSON.parse(await readFile(join(pluginDir, "dist/airlock.json"), "utf8")) as {
      namespace: string;
      tools: Array<{ name: string }>;
    };
    await ok("airlock", [
      "agents",
      "enable",
      agent,
      ...manifest.tools.map((t) => `${manifest.namespace}:${t.name}`),
      ...d,
    ]);
    const host = await serve(BIN.airlock, ["serve", "--port", "0", ...d], /Press Ctrl\+C to stop\./);
    const banner = host.text;
    const url = field(banner, new RegExp(`MCP \\(${agent}\\):\\s+(\\S+)`));
    const token = field(banner.slice(banner.indexOf(url)), /agent token:\s+(alk_ag_\S+)/);
    const proxy = await startHeaderProxy(url, { authorization: `Bearer ${token}` });
    return behind(proxy, async () => {
      await host.stop();
      await rm(work, { recursive: true, force: true });
    });
  } catch (error) {
    await rm(work, { recursive: true, force: true });
    throw error;
  }
}

/** The suite's server scenario names, as `conformance list --server` prints them. */
export async function listServerScenarios(): Promise<string[]> {
  const r = await run(CONFORMANCE, ["list", "--server"]);
  return [...r.stdout.matchAll(/^\s+- (\S+)/gm)].map((m) => m[1] as string);
}

/**
 * Runs `conformance server --url <url>` with `args` (`--suite all`, or `--scenario <name>`)
 * and reads back every scenario's checks. The exit status is ignored: the checks are the result.
 */
export async function runConformance(url: string, args: string[]): Promise<Map<string, Check[]>> {
  const out = await mkdtemp(join(tmpdir(), "airlock-conformance-out-"));
  try {
    const suite = await run(CONFORMANCE, ["server", "--url", url, ...args, "-o", out]);
    const results = new Map<string, Check[]>();
    for (const dir of await readdir(out)) {
      const name = /^server-(.+)-\d{4}-\d\d-\d\dT[\d-]+Z$/.exec(dir)?.[1];
      if (name === undefined) continue;
      results.set(name, JSON.parse(await readFile(join(out, dir, "checks.json"), "utf8")) as Check[]);
    }
    if (results.size === 0)
      throw new Error(`conformance wrote no results:\n${suite.stdout}\n${suite.stderr}`);
    return results;
  } finally {
    await rm(out, { recursive: true, force: true });
  }
}
