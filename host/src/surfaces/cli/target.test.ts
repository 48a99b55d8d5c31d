// Which host an `airlock` command acts on: a served data dir is recorded (data dir + user state
// dir) while the host runs and forgotten when it stops; commands from any folder follow it and
// go through its admin API; a busy port is one line with its code and the --port hint.
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { runServer } from "./commands/start.ts";
import { writeCredentials } from "./credentials.ts";
import { LOCATION_FILE, publishLocation, userHost, userStateDir } from "./host-location.ts";
import { runCli } from "./main.ts";
import type { CliIO } from "./types.ts";

let root: string;
let home: string;
let elsewhere: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "airlock-target-"));
  home = join(root, "home");
  elsewhere = join(root, "somewhere", "else");
  await mkdir(home, { recursive: true });
  await mkdir(elsewhere, { recursive: true });
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

function io(cwd: string, env: Record<string, string> = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const value: CliIO = {
    stdout: (t) => {
      out.push(t);
    },
    stderr: (t) => {
      err.push(t);
    },
    env: { HOME: home, ...env },
    cwd,
  };
  return { io: value, out: () => out.join(""), err: () => err.join("") };
}

/** A stand-in admin API that records what it is asked and answers like the real one. */
async function fakeAdmin(): Promise<{ url: string; requests: string[]; close(): Promise<void> }> {
  const { createAdaptorServer } = await import("@hono/node-server");
  const requests: string[] = [];
  const server = createAdaptorServer({
    fetch: async (req: Request) => {
      const url = new URL(req.url);
      requests.push(`${req.method} ${url.pathname} ${req.headers.get("authorization")} ${await req.text()}`);
      if (url.pathname === "/api/agents")
        return Response.json({ agents: [{ slug: "default", knowledgeLevel: "read", createdAt: "" }] });
      if (url.pathname === "/api/plugins/nope/rollback")
        return Response.json(
          { error: { code: "AIRLOCK_INSTALL_NOT_INSTALLED", message: "no plugin" } },
          { status: 404 },
        );
      return Response.json({ level: "manage" });
    },
  }) as Server;
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", () => done()));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise((done) => server.close(() => done())),
  };
}

describe("commands follow the running host", () => {
  test("from any folder, a command goes through the running host's admin API with the CLI's operator token", async () => {
    const dataDir = join(root, "served");
    await mkdir(dataDir, { recursive: true });
    await writeCredentials(dataDir, { operator: { id: "tok_op", token: "alk_op_secret" }, agents: {} });
    const admin = await fakeAdmin();
    const env = { HOME: home };
    const forget = await publishLocation(env, {
      dataDir,
      adminUrl: admin.url,
      registryUrl: null,
      pid: process.pid,
      version: "1.0.0",
      startedAt: new Date().toISOString(),
    });
    try {
      expect(userHost(env)?.adminUrl).toBe(admin.url);
      const run = io(elsewhere);
      expect(await runCli(["agents", "level", "default", "manage"], run.io)).toBe(0);
      expect(run.err()).toBe(`airlock: host at ${admin.url} (data: ${dataDir})\n`);
      expect(admin.requests).toEqual([
        "GET /api/agents Bearer alk_op_secret ",
        'PUT /api/agents/default/knowledge Bearer alk_op_secret {"level":"manage"}',
      ]);
      // Nothing was opened or created where the command ran.
      expect(existsSync(join(elsewhere, ".airlock-data"))).toBe(false);

      const failing = io(elsewhere);
      expect(await runCli(["plugins", "rollback", "nope"], failing.io)).toBe(1);
      expect(failing.err()).toContain(
        "error: AIRLOCK_INSTALL_NOT_INSTALLED: no plugin — `airlock plugins list` shows what is installed\n",
      );
    } finally {
      await forget();
      await admin.close();
    }
    expect(existsSync(join(dataDir, LOCATION_FILE))).toBe(false);
    expect(existsSync(join(userStateDir(env), LOCATION_FILE))).toBe(false);
  });

  test("a location whose process is gone names no host, and --data-dir names the data dir it acts on", async () => {
    const dataDir = join(root, "stale");
    await mkdir(dataDir, { recursive: true });
    const env = { HOME: home };
    await publishLocation(env, {
      dataDir,
      adminUrl: "http://127.0.0.1:9",
      registryUrl: null,
      pid: 2 ** 22 + 12345, // above Linux's pid_max: never alive
      version: "1.0.0",
      startedAt: "",
    });
    expect(userHost(env)).toBeNull();
    const own = join(root, "own");
    const run = io(elsewhere, { AIRLOCK_SANDBOX: "in-process" });
    expect(await runCli(["agents", "list", "--data-dir", own], run.io)).toBe(0);
    expect(run.err()).toBe(`airlock: data dir ${own} (no host running on it; via --data-dir)\n`);
  });
});

describe("--admin-url", () => {
  test("acts on the host at that URL with $AIRLOCK_OPERATOR_TOKEN, and refuses it without the token", async () => {
    const admin = await fakeAdmin();
    try {
      const run = io(elsewhere, { AIRLOCK_OPERATOR_TOKEN: "alk_op_given" });
      expect(
        await runCli(["agents", "level", "default", "manage", "--admin-url", `${admin.url}/api`], run.io),
      ).toBe(0);
      expect(run.err()).toBe(`airlock: host at ${admin.url} (via --admin-url)\n`);
      expect(admin.requests).toEqual([
        "GET /api/agents Bearer alk_op_given ",
        'PUT /api/agents/default/knowledge Bearer alk_op_given {"level":"manage"}',
      ]);
      const without = io(elsewhere);
      expect(await runCli(["plugins", "list", "--admin-url", admin.url], without.io)).toBe(2);
      expect(without.err()).toContain(
        "error: AIRLOCK_CLI_USAGE: --admin-url needs the operator token in $AIRLOCK_OPERATOR_TOKEN — set it to a token from `airlock tokens create --role operator`\n",
      );
      expect(admin.requests).toHaveLength(2);
    } finally {
      await admin.close();
    }
  });
});

describe("airlock serve records where it is", () => {
  test("writes its location while it runs and removes it at shutdown", async () => {
    const dataDir = join(root, "live");
    const env = { HOME: home };
    const { promise: stopped, resolve: stop } = Promise.withResolvers<void>();
    const run = io(root, { AIRLOCK_SANDBOX: "in-process" });
    const serving = runServer("serve", ["--data-dir", dataDir, "--port", "0"], run.io, [], () => stopped);
    while (!run.out().includes("Press Ctrl+C")) await new Promise((r) => setTimeout(r, 20));
    const location = userHost(env);
    expect(location?.dataDir).toBe(dataDir);
    expect(run.out()).toContain(`Admin API:       ${location?.adminUrl}/api`);
    const list = io(elsewhere);
    expect(await runCli(["agents", "list"], list.io)).toBe(0);
    expect(list.err()).toBe(`airlock: host at ${location?.adminUrl} (data: ${dataDir})\n`);
    expect(list.out()).toBe("No agents. Create one with `airlock agents create <slug>`.\n");
    stop();
    expect(await serving).toBe(0);
    expect(userHost(env)).toBeNull();
    expect(existsSync(join(dataDir, LOCATION_FILE))).toBe(false);
  });

  test("refuses a busy port in one line with its code and the --port hint, before starting anything", async () => {
    const busy = createServer();
    await new Promise<void>((done) => busy.listen(0, "127.0.0.1", () => done()));
    const port = (busy.address() as { port: number }).port;
    const dataDir = join(root, "busy");
    const run = io(root, { AIRLOCK_SANDBOX: "in-process" });
    try {
      expect(await runCli(["serve", "--data-dir", dataDir, "--port", String(port)], run.io)).toBe(1);
    } finally {
      await new Promise<void>((done) => busy.close(() => done()));
    }
    expect(run.err()).toBe(
      `error: AIRLOCK_CLI_PORT_IN_USE: 127.0.0.1:${port} is already in use (another \`airlock start\`?); stop it or pass --port N (0 = any free port)\n`,
    );
    expect(existsSync(dataDir)).toBe(false);
  });
});
