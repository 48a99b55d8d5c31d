// MCP over streamable HTTP on a real socket, driven by the MCP SDK's own Client and
// StreamableHTTPClientTransport: authentication, listing, calls, isError, progress, sessions.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, expect, test } from "vitest";
import { type AdminServer, startAdminServer } from "../../host/src/api/server.ts";
import { createSurfaceFixture, type SurfaceFixture } from "../../host/src/api/test-support.ts";

let f: SurfaceFixture;
let server: AdminServer;

beforeAll(async () => {
  f = await createSurfaceFixture();
  server = await startAdminServer(f.host, { port: 0, log: () => undefined });
});
afterAll(async () => {
  await server.close();
  await f.close();
});

async function connect(agent: string, token: string) {
  const client = new Client({ name: "e2e", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(server.mcpUrl(agent)), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  return { client, transport };
}

test("lists and calls the agent's tools with its token", async () => {
  const { client, transport } = await connect("alpha", f.agentToken);
  expect(transport.sessionId).toMatch(/[0-9a-f-]{36}/);
  const names = (await client.listTools()).tools.map((t) => t.name);
  expect(names).toEqual(expect.arrayContaining(["kit__echo", "kit__picture", "kit__slow"]));
  const result = (await client.callTool({
    name: "kit__echo",
    arguments: { text: "over mcp" },
  })) as CallToolResult;
  expect(result.content).toEqual([{ type: "text", text: "echo: over mcp" }]);
  await client.close();
});

test("returns a tool failure as an isError result", async () => {
  const { client } = await connect("alpha", f.operatorToken);
  const result = (await client.callTool({ name: "kit__fail", arguments: {} })) as CallToolResult;
  expect(result.isError).toBe(true);
  expect(result.content).toEqual([{ type: "text", text: "the fail tool always fails" }]);
  await client.close();
});

test("delivers progress notifications over the request's stream", async () => {
  const { client } = await connect("alpha", f.agentToken);
  const progress: number[] = [];
  const result = (await client.callTool({ name: "kit__slow", arguments: {} }, undefined, {
    onprogress: (p) => progress.push(p.progress),
  })) as CallToolResult;
  expect(progress).toEqual([1, 2]);
  expect(result.content).toEqual([{ type: "text", text: "slow done" }]);
  await client.close();
});

test("refuses a missing token and another agent's token", async () => {
  await expect(connect("alpha", "alk_ag_wrongwrongwrongwrongwrongwrongwrongwrongwro")).rejects.toThrow(
    /AIRLOCK_API_UNAUTHORIZED|Unauthorized/,
  );
  await expect(connect("alpha", f.otherAgentToken)).rejects.toThrow(/AIRLOCK_API_FORBIDDEN/);
  const res = await fetch(server.mcpUrl("alpha"), {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
  });
  expect(res.status).toBe(401);
  expect(await res.json()).toMatchObject({ error: { code: "AIRLOCK_API_UNAUTHORIZED" } });
});

test("answers 404 to a session id presented with another token", async () => {
  const { client, transport } = await connect("alpha", f.agentToken);
  const res = await fetch(server.mcpUrl("alpha"), {
    method: "POST",
    headers: {
      authorization: `Bearer ${f.operatorToken}`,
      "mcp-session-id": transport.sessionId as string,
      "mcp-protocol-version": "2025-06-18",
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 9, method: "tools/list" }),
  });
  expect(res.status).toBe(404);
  expect(await res.json()).toMatchObject({ error: { data: { code: "AIRLOCK_MCP_SESSION_NOT_FOUND" } } });
  await client.close();
});

test("refuses a non-initialize request without a session", async () => {
  const res = await fetch(server.mcpUrl("alpha"), {
    method: "POST",
    headers: {
      authorization: `Bearer ${f.agentToken}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
  });
  expect(res.status).toBe(400);
  expect(await res.text()).not.toContain("at ");
});

test("answers malformed and oversized MCP bodies with JSON-RPC errors, no stack, and stays healthy", async () => {
  const { client, transport } = await connect("alpha", f.agentToken);
  const headers = {
    authorization: `Bearer ${f.agentToken}`,
    "mcp-session-id": transport.sessionId as string,
    "mcp-protocol-version": "2025-06-18",
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
  };
  const malformed = await fetch(server.mcpUrl("alpha"), {
    method: "POST",
    headers,
    body: '{"jsonrpc": "2.0", "id": ',
  });
  expect(malformed.status).toBe(400);
  const malformedText = await malformed.text();
  expect(malformedText).toContain("jsonrpc");
  expect(malformedText).not.toMatch(/\n\s+at |\.ts:\d+/);
  const huge = await fetch(server.mcpUrl("alpha"), {
    method: "POST",
    headers,
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 3,
      method: "tools/call",
      params: { name: "kit__echo", arguments: { text: "x".repeat(5 * 1024 * 1024) } },
    }),
  });
  expect(huge.status).toBe(413);
  await huge.text();
  const after = (await client.callTool({
    name: "kit__echo",
    arguments: { text: "still here" },
  })) as CallToolResult;
  expect(after.content).toEqual([{ type: "text", text: "echo: still here" }]);
  await client.close();
});

test("a mutating call over MCP waits for an operator's approval given through the HTTP API", async () => {
  const { client } = await connect("alpha", f.agentToken);
  const pending = client.callTool({ name: "kit__write", arguments: {} });
  const approval = await new Promise<{ approvalId: string }>((resolve) => {
    const off = f.host.on("permission.required", (event) => {
      off();
      resolve(event);
    });
  });
  const listed = await fetch(`${server.url}/api/approvals?agent=alpha`, {
    headers: { authorization: `Bearer ${f.operatorToken}` },
  });
  expect(((await listed.json()) as { approvals: Array<{ id: string; toolName: string }> }).approvals).toEqual(
    [expect.objectContaining({ id: approval.approvalId, toolName: "kit:write" })],
  );
  const decided = await fetch(`${server.url}/api/approvals/${approval.approvalId}`, {
    method: "POST",
    headers: { authorization: `Bearer ${f.operatorToken}`, "content-type": "application/json" },
    body: JSON.stringify({ approve: true }),
  });
  expect(decided.status).toBe(200);
  expect(((await pending) as CallToolResult).content).toEqual([{ type: "text", text: "written" }]);
  await client.close();
});
