// `airlock mcp --agent <slug>` spawned by the MCP SDK's StdioClientTransport: the real CLI in
// a child process, on a data directory prepared by a real host (kit fixture, agent alpha).
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, expect, test } from "vitest";
import { createSurfaceFixture, type SurfaceFixture } from "../../host/src/api/test-support.ts";

const BIN = fileURLToPath(new URL("../../host/bin/airlock.ts", import.meta.url));
let f: SurfaceFixture;

beforeAll(async () => {
  f = await createSurfaceFixture();
  await f.closeHost();
});
afterAll(async () => {
  await f.close();
});

function transport(agent: string, extra: string[] = [], sandbox = "in-process"): StdioClientTransport {
  return new StdioClientTransport({
    command: process.execPath,
    args: [
      "--no-node-snapshot",
      BIN,
      "mcp",
      "--agent",
      agent,
      "--data-dir",
      f.dataDir,
      "--sandbox",
      sandbox,
      ...extra,
    ],
    env: { PATH: process.env.PATH ?? "" },
    stderr: "pipe",
  });
}

test("serves the agent's tools over stdio: list, call, isError, progress", async () => {
  const client = new Client({ name: "e2e-stdio", version: "1.0.0" });
  await client.connect(transport("alpha"));
  const names = (await client.listTools()).tools.map((t) => t.name);
  expect(names).toEqual(expect.arrayContaining(["kit__echo", "kit__fail", "kit__slow"]));
  const echo = (await client.callTool({ name: "kit__echo", arguments: { text: "stdio" } })) as CallToolResult;
  expect(echo.content).toEqual([{ type: "text", text: "echo: stdio" }]);
  const failed = (await client.callTool({ name: "kit__fail", arguments: {} })) as CallToolResult;
  expect(failed.isError).toBe(true);
  const progress: number[] = [];
  await client.callTool({ name: "kit__slow", arguments: {} }, undefined, {
    onprogress: (p) => progress.push(p.progress),
  });
  expect(progress).toEqual([1, 2]);
  await client.close();
});

test("exits with an error naming the agent when it does not exist", async () => {
  const t = transport("ghost");
  const stderr: string[] = [];
  t.stderr?.on("data", (chunk: Buffer) => stderr.push(chunk.toString()));
  const closed = new Promise<void>((resolve) => {
    t.onclose = () => resolve();
  });
  const client = new Client({ name: "e2e-stdio", version: "1.0.0" });
  await expect(client.connect(t)).rejects.toThrow();
  await closed;
  expect(stderr.join("")).toContain("AIRLOCK_CLI_UNKNOWN_AGENT");
});

test("serves only the tools named with --tool, plus the --harness group's", async () => {
  const client = new Client({ name: "e2e-stdio", version: "1.0.0" });
  await client.connect(
    transport("alpha", ["--tool", "kit:echo", "--tool", "kit__fail", "--harness", "dice"]),
  );
  expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual([
    "kit__echo",
    "kit__fail",
    "kit__roll_dice",
  ]);
  await client.close();
});

test("runs tools in the worker-process sandbox without corrupting the stdio stream", async () => {
  const client = new Client({ name: "e2e-stdio", version: "1.0.0" });
  await client.connect(transport("alpha", [], "workers"));
  const echo = (await client.callTool({
    name: "kit__echo",
    arguments: { text: "in a worker" },
  })) as CallToolResult;
  expect(echo.content).toEqual([{ type: "text", text: "echo: in a worker" }]);
  const progress: number[] = [];
  await client.callTool({ name: "kit__slow", arguments: {} }, undefined, {
    onprogress: (p) => progress.push(p.progress),
  });
  expect(progress).toEqual([1, 2]);
  await client.close();
});
