// `airlock mcp --agent <slug>` spawned by the MCP SDK's StdioClientTransport: the real CLI in
// a child process, on a data directory prepared by a real host (kit fixture, agent alpha).
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult, JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
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

/**
 * Calls kit__slow with a progress token and returns what arrived on the wire before its result:
 * the progress values in order. Read from the transport, because the SDK's Client runs
 * notification handlers a microtask late but a response at once, so `onprogress` can miss a
 * last notification that the server did send before the result.
 */
async function progressBeforeResult(client: Client, t: StdioClientTransport): Promise<number[]> {
  const seen: number[] = [];
  let resultSeen = false;
  const inner = t.onmessage;
  t.onmessage = (message: JSONRPCMessage) => {
    const m = message as { method?: string; params?: { progress?: number }; result?: unknown };
    if (m.method === "notifications/progress" && !resultSeen) seen.push(m.params?.progress ?? Number.NaN);
    if (m.result !== undefined) resultSeen = true;
    inner?.(message);
  };
  const slow = (await client.callTool({ name: "kit__slow", arguments: {} }, undefined, {
    onprogress: () => undefined,
  })) as CallToolResult;
  expect(slow.content).toEqual([{ type: "text", text: "slow done" }]);
  return seen;
}

test("serves the agent's tools over stdio: list, call, isError, progress", async () => {
  const client = new Client({ name: "e2e-stdio", version: "1.0.0" });
  const t = transport("alpha");
  await client.connect(t);
  const names = (await client.listTools()).tools.map((t) => t.name);
  expect(names).toEqual(expect.arrayContaining(["kit__echo", "kit__fail", "kit__slow"]));
  const echo = (await client.callTool({ name: "kit__echo", arguments: { text: "stdio" } })) as CallToolResult;
  expect(echo.content).toEqual([{ type: "text", text: "echo: stdio" }]);
  const failed = (await client.callTool({ name: "kit__fail", arguments: {} })) as CallToolResult;
  expect(failed.isError).toBe(true);
  expect(await progressBeforeResult(client, t)).toEqual([1, 2]);
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
  const t = transport("alpha", [], "workers");
  await client.connect(t);
  const echo = (await client.callTool({
    name: "kit__echo",
    arguments: { text: "in a worker" },
  })) as CallToolResult;
  expect(echo.content).toEqual([{ type: "text", text: "echo: in a worker" }]);
  expect(await progressBeforeResult(client, t)).toEqual([1, 2]);
  await client.close();
});
