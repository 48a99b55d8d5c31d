// `airlock mcp --agent <slug>` spawned by the MCP SDK's StdioClientTransport: the real CLI in
// a child process, on a data directory prepared by a real host (kit fixture, agent alpha).
import { fileURLToPath } from "node:url";
import { Client as V2Client } from "@modelcontextprotocol/client";
import { StdioClientTransport as V2StdioTransport } from "@modelcontextprotocol/client/stdio";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult, JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { AirlockHost } from "../../host/src/contracts/host.ts";
import { createHost } from "../../host/src/host.ts";
import { testStore, testStoreEnv } from "../../host/src/state/store/test-store.ts";
import { createSurfaceFixture, type SurfaceFixture } from "../../host/src/surfaces/http/test-support.ts";

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
    env: { PATH: process.env.PATH ?? "", ...testStoreEnv(f.dataDir) },
    stderr: "pipe",
  });
}

/**
 * Runs `call` (kit__slow with a progress token) and returns what arrived on the wire before its
 * result: the progress values in order. Read from the transport, because the SDK clients handle
 * a response at once but a notification later, so `onprogress` can miss a last notification
 * that the server did send before the result.
 */
/** What the helper needs of a client transport (the v1 and v2 SDKs type their messages apart). */
type Wire = { onmessage?: ((message: JSONRPCMessage) => void) | undefined };

async function progressBeforeResult(t: Wire, call: () => Promise<unknown>): Promise<number[]> {
  const seen: number[] = [];
  let resultSeen = false;
  const inner = t.onmessage;
  t.onmessage = (message: JSONRPCMessage) => {
    const m = message as { method?: string; params?: { progress?: number }; result?: unknown };
    if (m.method === "notifications/progress" && !resultSeen) seen.push(m.params?.progress ?? Number.NaN);
    if (m.result !== undefined) resultSeen = true;
    inner?.(message);
  };
  const slow = (await call()) as CallToolResult;
  expect(slow.content).toEqual([{ type: "text", text: "slow done" }]);
  return seen;
}

const slowV1 = (client: Client) => () =>
  client.callTool({ name: "kit__slow", arguments: {} }, undefined, { onprogress: () => undefined });

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
  expect(await progressBeforeResult(t, slowV1(client))).toEqual([1, 2]);
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
  expect(await progressBeforeResult(t, slowV1(client))).toEqual([1, 2]);
  await client.close();
});

/** The SDK v2 client over stdio, in its default 2025 handshake or pinned to 2026-07-28. */
describe.each(["2025-11-25", "2026-07-28"] as const)("sdk v2 client, %s, over stdio", (era) => {
  async function connectV2(sandbox = "in-process") {
    const t = new V2StdioTransport({
      command: process.execPath,
      args: [
        "--no-node-snapshot",
        BIN,
        "mcp",
        "--agent",
        "alpha",
        "--data-dir",
        f.dataDir,
        "--sandbox",
        sandbox,
      ],
      env: { PATH: process.env.PATH ?? "", ...testStoreEnv(f.dataDir) },
      stderr: "pipe",
    });
    let changed: (() => void) | undefined;
    const client = new V2Client(
      { name: "e2e-stdio", version: "1.0.0" },
      {
        ...(era === "2026-07-28" ? { versionNegotiation: { mode: { pin: "2026-07-28" } } } : {}),
        listChanged: { tools: { autoRefresh: false, onChanged: () => changed?.() } },
      },
    );
    await client.connect(t);
    const nextListChange = () =>
      new Promise<void>((resolve) => {
        changed = resolve;
      });
    return { client, nextListChange, transport: t };
  }

  test("negotiates its era, lists, calls, reports progress and codes", async () => {
    const { client, transport: t } = await connectV2();
    expect(client.getProtocolEra()).toBe(era === "2026-07-28" ? "modern" : "legacy");
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(["kit__echo", "kit__fail", "kit__picture", "kit__slow", "kit__write"]);
    const echo = await client.callTool({ name: "kit__echo", arguments: { text: "stdio" } });
    expect(echo.content).toEqual([{ type: "text", text: "echo: stdio" }]);
    const unknown = await client.callTool({ name: "kit:echo", arguments: {} });
    expect(unknown).toMatchObject({
      isError: true,
      _meta: { "airlock/errorCode": "AIRLOCK_MCP_UNKNOWN_TOOL" },
    });
    const progress = await progressBeforeResult(t as unknown as Wire, () =>
      client.callTool({ name: "kit__slow", arguments: {} }, { onprogress: () => undefined }),
    );
    expect(progress).toEqual([1, 2]);
    await client.close();
  });

  test("tells the client when an operator in another process changes the agent's tools", async () => {
    const { client, nextListChange } = await connectV2();
    const operator = await createHost({
      dataDir: f.dataDir,
      store: testStore(f.dataDir),
      sandbox: { mode: "in-process" },
    });
    try {
      const disabled = nextListChange();
      await operator.setToolsEnabled("alpha", { "kit:picture": false });
      await disabled;
      expect((await client.listTools()).tools.map((t) => t.name)).not.toContain("kit__picture");
      const enabled = nextListChange();
      await operator.setToolsEnabled("alpha", { "kit:picture": true });
      await enabled;
      expect((await client.listTools()).tools.map((t) => t.name)).toContain("kit__picture");
    } finally {
      await operator.close();
      await client.close();
    }
  });

  test("cancels a call the client abandons, and the audit says so", async () => {
    const { client } = await connectV2();
    const abort = new AbortController();
    const call = client
      .callTool({ name: "kit__write", arguments: {} }, { signal: abort.signal })
      .catch((e: unknown) => e);
    await new Promise((resolve) => setTimeout(resolve, 500)); // the call is waiting for an approval
    abort.abort("gave up");
    expect(await call).toBeInstanceOf(Error);
    const reader = await createHost({
      dataDir: f.dataDir,
      store: testStore(f.dataDir),
      sandbox: { mode: "in-process" },
    });
    try {
      let entries: Awaited<ReturnType<AirlockHost["queryAudit"]>> = [];
      for (let i = 0; i < 50 && entries.length === 0; i++) {
        entries = (await reader.queryAudit({ agent: "alpha", kind: "tool" })).filter(
          (e) => e.plugin === "kit" && e.tool === "write" && e.error === "AIRLOCK_TOOL_CANCELLED",
        );
        if (entries.length === 0) await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(entries.length).toBeGreaterThan(0);
    } finally {
      await reader.close();
      await client.close();
    }
  });
});
