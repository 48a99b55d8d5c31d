// `airlock serve` as a real child process: it prints working URLs and tokens, serves the admin
// API and MCP on them, exits 0 on SIGTERM, and a restart on the same data directory prints the
// same (still valid) operator token. (`airlock start` = serve + bootstrap steps; the first-party
// bootstrap, which builds and publishes every plugin, has its own suite in cli/bootstrap/.)
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, expect, test } from "vitest";
import { runCli } from "../../host/src/surfaces/cli/main.ts";

const BIN = fileURLToPath(new URL("../../host/bin/airlock.ts", import.meta.url));
let dataDir: string;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), "airlock-start-"));
  const io = {
    stdout: () => undefined,
    stderr: () => undefined,
    env: { AIRLOCK_SANDBOX: "in-process" },
    cwd: dataDir,
  };
  expect(await runCli(["agents", "create", "default", "--data-dir", dataDir], io)).toBe(0);
});
afterAll(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

interface Started {
  child: ChildProcess;
  banner: string;
  exited: Promise<number | null>;
}

function launch(command: "start" | "serve"): Promise<Started> {
  const child = spawn(
    process.execPath,
    ["--no-node-snapshot", BIN, command, "--port", "0", "--data-dir", dataDir, "--sandbox", "workers"],
    { env: { PATH: process.env.PATH ?? "" }, stdio: ["ignore", "pipe", "pipe"] },
  );
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  let out = "";
  let err = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    err += chunk.toString();
  });
  return new Promise((resolve, reject) => {
    child.stdout?.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes("Press Ctrl+C to stop.")) resolve({ child, banner: out, exited });
    });
    exited.then((code) => reject(new Error(`exited ${code} before serving: ${err}`)));
  });
}

function field(banner: string, pattern: RegExp): string {
  const match = pattern.exec(banner);
  if (match?.[1] === undefined) throw new Error(`no ${pattern} in banner:\n${banner}`);
  return match[1];
}

test("serve prints the admin URL, the operator token and each agent's MCP URL and token", async () => {
  const started = await launch("serve");
  try {
    const api = field(started.banner, /Admin API:\s+(\S+)\/api\s/);
    const operator = field(started.banner, /Operator token:\s+(alk_op_\S+)/);
    const mcpUrl = field(started.banner, /MCP \(default\):\s+(\S+)/);
    const agentToken = field(started.banner, /agent token:\s+(alk_ag_\S+)/);
    const agents = await fetch(`${api}/api/instances`, { headers: { authorization: `Bearer ${operator}` } });
    expect(
      ((await agents.json()) as { agents: Array<{ slug: string }> }).agents.map((a) => a.slug),
    ).toContain("default");
    const client = new Client({ name: "e2e-start", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(mcpUrl), {
        requestInit: { headers: { authorization: `Bearer ${agentToken}` } },
      }),
    );
    expect(Array.isArray((await client.listTools()).tools)).toBe(true);
    await client.close();
  } finally {
    started.child.kill("SIGTERM");
  }
  expect(await started.exited).toBe(0);
});

test("serve on the same data directory prints the same operator token, still valid", async () => {
  const first = field((await launchAndStop("serve")).banner, /Operator token:\s+(alk_op_\S+)/);
  const again = await launch("serve");
  try {
    const operator = field(again.banner, /Operator token:\s+(alk_op_\S+)/);
    expect(operator).toBe(first);
    const api = field(again.banner, /Admin API:\s+(\S+)\/api\s/);
    expect(
      (await fetch(`${api}/api/tools`, { headers: { authorization: `Bearer ${operator}` } })).status,
    ).toBe(200);
  } finally {
    again.child.kill("SIGTERM");
  }
  expect(await again.exited).toBe(0);
});

async function launchAndStop(command: "start" | "serve"): Promise<Started> {
  const started = await launch(command);
  started.child.kill("SIGTERM");
  expect(await started.exited).toBe(0);
  return started;
}
