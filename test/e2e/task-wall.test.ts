// A task call's wall limit is the tool's operator-set task ceiling, not the plugin's per-call
// wallMs: a long-running tool that waits (bounded timers) past its plugin's 1 s wallMs is
// stopped when called directly, completes when run as an MCP task (SDK v1 client, 2025-11-25
// tasks utility), and a per-tool ceiling below its run time stops the task with
// AIRLOCK_TOOL_TIMEOUT naming that ceiling. In both sandbox modes: in-process, and workers
// (where the deadline crosses to the worker with the call).
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { AirlockHost } from "../../host/src/contracts/host.ts";
import { type FixturePlugin, installFixture } from "../../host/src/engine/pipeline/test-fixtures.ts";
import { createHost } from "../../host/src/host.ts";
import { openStore } from "../../host/src/state/store/index.ts";
import { testStore } from "../../host/src/state/store/test-store.ts";
import { type AdminServer, startAdminServer } from "../../host/src/surfaces/http/server.ts";

const nap = (name: string) => ({
  name,
  description: "Waits `ms` milliseconds on a timer, then answers.",
  annotations: { readOnlyHint: true },
  longRunning: true,
  inputSchema: {
    type: "object",
    properties: { ms: { type: "integer", minimum: 0 } },
    required: ["ms"],
    additionalProperties: false,
  },
  code: `async (input) => { await new Promise((r) => setTimeout(r, input.ms)); return "${name} " + input.ms + " ms"; }`,
});

const SLEEPY: FixturePlugin = {
  namespace: "sleepy",
  version: "1.0.0",
  limits: { wallMs: 1000 },
  tools: [nap("nap"), nap("doze")],
};

type Message = {
  type: string;
  result?: { content: Array<{ text?: string }>; isError?: boolean; _meta?: Record<string, unknown> };
};

describe.each(["in-process", "workers"] as const)("sandbox %s", (mode) => {
  let dir: string;
  let host: AirlockHost;
  let server: AdminServer;
  let client: Client;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "airlock-task-wall-"));
    const seed = await openStore(testStore(dir));
    try {
      await installFixture(seed, join(dir, "plugins"), SLEEPY);
    } finally {
      await seed.close();
    }
    host = await createHost({
      dataDir: dir,
      store: testStore(dir),
      sandbox: { mode },
      onInternalError: () => undefined,
      tasks: { wallMs: 60_000, toolWallMs: { "sleepy:doze": 1500 }, pollIntervalMs: 100 },
    });
    await host.createAgent("alpha");
    await host.setToolsEnabled("alpha", { "sleepy:nap": true, "sleepy:doze": true });
    const token = (await host.issueToken("agent", "alpha", "t")).token;
    server = await startAdminServer(host, { port: 0, log: () => undefined });
    client = new Client({ name: "wall", version: "1.0.0" }, { capabilities: { tasks: {} } });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(server.mcpUrl("alpha")), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
  }, 60_000);
  afterAll(async () => {
    await client?.close();
    await server?.close();
    await host?.close();
    await rm(dir, { recursive: true, force: true });
  });

  async function asTask(name: string, ms: number): Promise<Message> {
    const messages: Message[] = [];
    const stream = client.experimental.tasks.callToolStream({ name, arguments: { ms } }, undefined, {
      task: { ttl: 60_000 },
      timeout: 30_000,
    });
    for await (const m of stream) messages.push(m as Message);
    return messages.at(-1) as Message;
  }

  test("called directly, the tool is stopped at its plugin's wallMs", async () => {
    const direct = await host.callTool("alpha", "sleepy:nap", { ms: 2500 });
    expect(direct.errorCode).toBe("AIRLOCK_TOOL_TIMEOUT");
    expect(JSON.stringify(direct.result.content)).toContain("within 1000 ms");
  });

  test("as a task it runs past the plugin's wallMs, under the task ceiling, and completes", async () => {
    const last = await asTask("sleepy__nap", 2500);
    expect(last.type).toBe("result");
    expect(last.result?.isError).toBeUndefined();
    expect(last.result?.content).toEqual([{ type: "text", text: "nap 2500 ms" }]);
  });

  test("a per-tool task ceiling below the run time stops the task with that ceiling", async () => {
    const last = await asTask("sleepy__doze", 4000);
    expect(last.type).toBe("result");
    expect(last.result?.isError).toBe(true);
    expect(last.result?._meta?.["airlock/errorCode"]).toBe("AIRLOCK_TOOL_TIMEOUT");
    expect(last.result?.content[0]?.text).toContain("within 1500 ms");
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  });
});
