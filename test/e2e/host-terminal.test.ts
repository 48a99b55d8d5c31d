// What the host's terminal shows while `airlock serve` answers (start prints the same): one line
// per failed request, 4xx and 5xx alike, with its code and no stack (an upstream 502, an install
// from a registry nobody listens on, used to print a 28-line stack and nothing else);
// `--log-format json` prints the same as JSON lines; `--verbose` adds the stack.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BIN, cli } from "./cli-support.ts";

const STEP = 120_000;
let work: string;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), "airlock-terminal-"));
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

/** A loopback port nobody listens on. */
function closedPort(): Promise<number> {
  return new Promise((done) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => done(port));
    });
  });
}

interface Served {
  child: ChildProcess;
  api: string;
  operator: string;
  stderr(): string;
  stop(): Promise<void>;
}

async function serve(dir: string, extra: string[]): Promise<Served> {
  const registry = `http://127.0.0.1:${await closedPort()}`;
  const args = ["serve", "--data-dir", dir, "--port", "0", "--sandbox", "in-process", "--registry", registry];
  const child = spawn(process.execPath, ["--no-node-snapshot", BIN.airlock, ...args, ...extra], {
    env: { PATH: process.env.PATH ?? "", HOME: dir },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  child.stderr?.on("data", (c: Buffer) => {
    err += c.toString("utf8");
  });
  const exited = new Promise<void>((done) => child.once("close", () => done()));
  await new Promise<void>((ready, fail) => {
    child.once("close", (status) => fail(new Error(`exited ${status}: ${err}`)));
    child.stdout?.on("data", (c: Buffer) => {
      out += c.toString("utf8");
      if (out.includes("Press Ctrl+C")) ready();
    });
  });
  return {
    child,
    api: /Admin API:\s+(\S+)\/api\s/.exec(out)?.[1] ?? "",
    operator: /Operator token:\s+(\S+)/.exec(out)?.[1] ?? "",
    stderr: () => err,
    async stop() {
      child.kill("SIGTERM");
      await exited;
    },
  };
}

async function failThreeWays(s: Served): Promise<void> {
  const headers = { authorization: `Bearer ${s.operator}`, "content-type": "application/json" };
  const install = await fetch(`${s.api}/api/plugins`, {
    method: "POST",
    headers,
    body: JSON.stringify({ spec: "weather@^1" }),
  });
  expect(install.status).toBe(502);
  expect((await fetch(`${s.api}/api/agents/nope/tools`, { headers })).status).toBe(404);
  expect((await fetch(`${s.api}/api/tools`, { headers: { authorization: "Bearer wrong" } })).status).toBe(
    401,
  );
  // The lines are written as the answers go out; wait until all three are there.
  while (
    s
      .stderr()
      .split("\n")
      .filter((l) => /AIRLOCK_API_UNAUTHORIZED/.test(l)).length === 0
  )
    await new Promise((r) => setTimeout(r, 20));
}

describe("the host's terminal", () => {
  it("prints one line per failed request with its code, and no stack", { timeout: STEP }, async () => {
    const s = await serve(join(work, "text"), []);
    try {
      await failThreeWays(s);
      const lines = s.stderr().trim().split("\n");
      expect(lines.filter((l) => l.includes("AIRLOCK_INSTALL_REGISTRY_UNREACHABLE"))).toEqual([
        expect.stringMatching(
          /^airlock: 502 AIRLOCK_INSTALL_REGISTRY_UNREACHABLE POST \/api\/plugins — cannot reach http:\/\/127\.0\.0\.1:\d+\/weather/,
        ),
      ]);
      expect(lines).toContain(
        'airlock: 404 AIRLOCK_API_UNKNOWN_AGENT GET /api/agents/nope/tools — no agent has slug "nope"',
      );
      expect(
        lines.some((l) => /^airlock: 401 AIRLOCK_API_UNAUTHORIZED GET \/api\/tools — invalid token/.test(l)),
      ).toBe(true);
      expect(s.stderr()).not.toMatch(/^\s+at /m);
      expect(lines).toHaveLength(3);
    } finally {
      await s.stop();
    }
  });

  it("prints JSON lines with --log-format json, and stacks with --verbose", { timeout: STEP }, async () => {
    const s = await serve(join(work, "json"), ["--log-format", "json", "--verbose"]);
    try {
      await failThreeWays(s);
      const events = s
        .stderr()
        .trim()
        .split("\n")
        .filter((l) => l.startsWith("{"))
        .map((l) => JSON.parse(l) as Record<string, unknown>);
      expect(events.map((e) => [e.event, e.status, e.code])).toEqual([
        ["request.failed", 502, "AIRLOCK_INSTALL_REGISTRY_UNREACHABLE"],
        ["request.failed", 404, "AIRLOCK_API_UNKNOWN_AGENT"],
        ["request.failed", 401, "AIRLOCK_API_UNAUTHORIZED"],
      ]);
      expect(events[0]).toMatchObject({ level: "error", method: "POST", path: "/api/plugins" });
      expect(String(events[0]?.stack)).toMatch(/\n\s+at /);
      expect(events[1]?.stack).toBeUndefined();
    } finally {
      await s.stop();
    }
  });

  it("refuses an unknown --log-format before it serves", async () => {
    const r = await cli("airlock", [
      "serve",
      "--data-dir",
      join(work, "bad"),
      "--port",
      "0",
      "--log-format",
      "xml",
    ]);
    expect(r.status).not.toBe(0);
    expect(r.stderr).toMatch(
      /AIRLOCK_CLI_CONFIG_INVALID: --log-format: must be text or json \(got "xml"\)$/m,
    );
  });
});
