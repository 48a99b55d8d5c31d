// The agent MCP server driven by the MCP SDK's own Client over an in-memory transport, against
// a real host (SQLite, in-process sandbox, the kit fixture plugin).
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import {
  type CallToolResult,
  type LoggingLevel,
  LoggingMessageNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createSurfaceFixture, PNG_1X1, type SurfaceFixture } from "../http/test-support.ts";
import { createAgentMcpServer, type McpServerOptions } from "./server.ts";

// The 2025 era on one long-lived instance (as stdio serves it); the log level lives with the caller.

let f: SurfaceFixture;

beforeAll(async () => {
  f = await createSurfaceFixture();
});
afterAll(async () => {
  await f.close();
});

async function connect(options: McpServerOptions = {}, agent = "alpha") {
  let level: LoggingLevel | undefined;
  const server = createAgentMcpServer(
    f.host,
    agent,
    { log: () => undefined, ...options },
    {
      era: "legacy",
      conversationId: "mcp-unit",
      logLevel: async () => level,
      setLogLevel: async (chosen) => {
        level = chosen;
      },
    },
  );
  const client = new Client({ name: "test", version: "1.0.0" });
  const [a, b] = InMemoryTransport.createLinkedPair();
  await Promise.all([server.connect(a), client.connect(b)]);
  return { client, close: () => client.close() };
}

describe("tools/list", () => {
  test("lists served tools as ns__tool with description, schema and annotations, no presentation", async () => {
    const { client, close } = await connect();
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([
      "kit__echo",
      "kit__fail",
      "kit__picture",
      "kit__slow",
      "kit__write",
    ]);
    const echo = tools.find((t) => t.name === "kit__echo");
    expect(echo).toMatchObject({
      title: "Echo",
      description: "Echoes the text back.",
      inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
      annotations: { title: "Echo", readOnlyHint: true },
    });
    expect(JSON.stringify(tools)).not.toContain("presentation");
    expect(JSON.stringify(tools)).not.toContain("repeat");
    await close();
  });

  test("injects harness tools only for the harness groups asked for", async () => {
    const plain = await connect();
    expect((await plain.client.listTools()).tools.map((t) => t.name)).not.toContain("kit__roll_dice");
    await plain.close();
    const { client, close } = await connect({ harness: ["dice"] });
    expect((await client.listTools()).tools.map((t) => t.name)).toContain("kit__roll_dice");
    const rolled = (await client.callTool({ name: "kit__roll_dice", arguments: {} })) as CallToolResult;
    expect(rolled.content).toEqual([{ type: "text", text: "rolled 4" }]);
    await close();
  });

  test("names tools bare when asked (airlock-plugin dev)", async () => {
    const { client, close } = await connect({ naming: "bare" });
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toContain("echo");
    const result = (await client.callTool({ name: "echo", arguments: { text: "bare" } })) as CallToolResult;
    expect(result.content).toEqual([{ type: "text", text: "echo: bare" }]);
    await close();
  });
});

describe("tools/list pages", () => {
  test("pages in name order with a cursor, and refuses a cursor it did not issue", async () => {
    const { client, close } = await connect({ pageSize: 2 });
    const names: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await client.listTools(cursor === undefined ? {} : { cursor });
      names.push(...page.tools.map((t) => t.name));
      cursor = page.nextCursor;
      pages++;
    } while (cursor !== undefined);
    expect(pages).toBe(3);
    expect(names).toEqual(["kit__echo", "kit__fail", "kit__picture", "kit__slow", "kit__write"]);
    for (const bogus of [
      "nope",
      "YWlybG9jay10b29sczowMQ",
      Buffer.from("airlock-tools:0").toString("base64url"),
    ]) {
      await expect(client.listTools({ cursor: bogus })).rejects.toMatchObject({ code: -32602 });
    }
    await close();
  });
});

describe("tools/call", () => {
  test("maps text, image and structuredContent faithfully", async () => {
    const { client, close } = await connect();
    const text = (await client.callTool({ name: "kit__echo", arguments: { text: "hi" } })) as CallToolResult;
    expect(text.content).toEqual([{ type: "text", text: "echo: hi" }]);
    expect(text.isError).toBeUndefined();
    const picture = (await client.callTool({ name: "kit__picture", arguments: {} })) as CallToolResult;
    expect(picture.content).toEqual([{ type: "image", data: PNG_1X1, mimeType: "image/png" }]);
    expect(picture.structuredContent).toEqual({ width: 1, height: 1 });
    await close();
  });

  test("returns a failing tool and invalid input as isError results with the code in _meta", async () => {
    const { client, close } = await connect();
    const failed = (await client.callTool({ name: "kit__fail", arguments: {} })) as CallToolResult;
    expect(failed).toMatchObject({
      isError: true,
      content: [{ type: "text", text: "the fail tool always fails" }],
    });
    const invalid = (await client.callTool({ name: "kit__echo", arguments: { text: 42 } })) as CallToolResult;
    expect(invalid.isError).toBe(true);
    expect(invalid._meta?.["airlock/errorCode"]).toBe("AIRLOCK_TOOL_INPUT_INVALID");
    const unknown = (await client.callTool({ name: "nothing", arguments: {} })) as CallToolResult;
    expect(unknown).toMatchObject({
      isError: true,
      _meta: { "airlock/errorCode": "AIRLOCK_MCP_UNKNOWN_TOOL" },
    });
    await close();
  });

  test("answers one code for a tool it does not serve, whatever the spelling, naming what to send", async () => {
    const { client, close } = await connect();
    for (const name of ["kit__keyed", "kit:echo", "echo", "KIT__ECHO", "kit__nothing", ""]) {
      const result = (await client.callTool({ name, arguments: {} })) as CallToolResult;
      expect(result).toMatchObject({
        isError: true,
        _meta: { "airlock/errorCode": "AIRLOCK_MCP_UNKNOWN_TOOL" },
      });
      expect(JSON.stringify(result.content)).toContain("kit__echo");
    }
    await close();
  });

  test("sends progress notifications for a progress token and log lines as logging messages", async () => {
    const { client, close } = await connect();
    const logs: Array<{ level: string; data: unknown; logger?: string | undefined }> = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
      logs.push(n.params);
    });
    const progress: Array<{ progress: number; total?: number | undefined; message?: string | undefined }> =
      [];
    const result = (await client.callTool({ name: "kit__slow", arguments: {} }, undefined, {
      onprogress: (p) => progress.push(p),
    })) as CallToolResult;
    expect(result.content).toEqual([{ type: "text", text: "slow done" }]);
    expect(progress).toEqual([
      { progress: 1, total: 2, message: "half" },
      { progress: 2, total: 2, message: "done" },
    ]);
    expect(logs).toEqual([{ level: "info", logger: "kit__slow", data: "halfway there" }]);
    await close();
  });

  test("drops log lines under the level the client set", async () => {
    const { client, close } = await connect();
    const logs: unknown[] = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
      logs.push(n.params);
    });
    await client.setLoggingLevel("error");
    await client.callTool({ name: "kit__slow", arguments: {} });
    expect(logs).toEqual([]);
    await close();
  });

  test("waits for an approval on a mutating tool; a denial is a result, not a protocol error", async () => {
    const { client, close } = await connect();
    const off = f.host.on("permission.required", (event) => {
      f.host.decideApproval(event.approvalId, { approve: false, reason: "not today" });
    });
    try {
      const denied = (await client.callTool({ name: "kit__write", arguments: {} })) as CallToolResult;
      expect(denied.isError).toBe(true);
      expect(JSON.stringify(denied.content)).toContain("not today");
    } finally {
      off();
    }
    await close();
    const auto = await connect({ autoApprove: true });
    const ran = (await auto.client.callTool({ name: "kit__write", arguments: {} })) as CallToolResult;
    expect(ran.content).toEqual([{ type: "text", text: "written" }]);
    await auto.close();
  });
});
