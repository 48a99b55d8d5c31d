// The admin API over a real socket (startAdminServer on a free loopback port) with plain HTTP:
// fetch for the ordinary routes, node:http where a test must forge Host or Origin headers.
import { request as httpRequest } from "node:http";
import { afterAll, beforeAll, expect, test } from "vitest";
import { type AdminServer, startAdminServer } from "../../host/src/surfaces/http/server.ts";
import { createSurfaceFixture, type SurfaceFixture } from "../../host/src/surfaces/http/test-support.ts";

let f: SurfaceFixture;
let server: AdminServer;

beforeAll(async () => {
  f = await createSurfaceFixture();
  server = await startAdminServer(f.host, { port: 0, log: () => undefined, eventKeepAliveMs: 0 });
});
afterAll(async () => {
  await server.close();
  await f.close();
});

function raw(path: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${server.url}${path}`, { headers }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        body += chunk;
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

test("serves health and the catalogue over HTTP", async () => {
  expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  expect(await (await fetch(`${server.url}/healthz`)).json()).toEqual({
    status: "ok",
    version: f.host.version,
  });
  const tools = await fetch(`${server.url}/api/tools`, {
    headers: { authorization: `Bearer ${f.operatorToken}` },
  });
  expect(tools.status).toBe(200);
  expect(((await tools.json()) as { tools: Array<{ id: string }> }).tools.map((t) => t.id)).toContain(
    "kit:echo",
  );
});

test("calls a tool with an agent token over HTTP", async () => {
  const res = await fetch(`${server.url}/api/instances/alpha/calls`, {
    method: "POST",
    headers: { authorization: `Bearer ${f.agentToken}`, "content-type": "application/json" },
    body: JSON.stringify({ tool: "kit:echo", input: { text: "over http" } }),
  });
  expect(res.status).toBe(200);
  expect(await res.json()).toMatchObject({
    result: { content: [{ type: "text", text: "echo: over http" }] },
  });
});

test("streams events over a socket", async () => {
  const controller = new AbortController();
  const res = await fetch(`${server.url}/api/events`, {
    headers: { authorization: `Bearer ${f.operatorToken}` },
    signal: controller.signal,
  });
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let text = "";
  while (!text.includes(": connected")) text += decoder.decode((await reader.read()).value);
  await f.host.callTool("alpha", "kit:echo", { text: "evt" });
  while (!text.includes("event: tool.completed")) text += decoder.decode((await reader.read()).value);
  expect(text).toContain('"toolName":"kit:echo"');
  controller.abort();
});

test("refuses a foreign Host header and a foreign Origin (DNS rebinding)", async () => {
  const ok = await raw("/healthz", {});
  expect(ok.status).toBe(200);
  const evilHost = await raw("/healthz", { host: `evil.example:${server.port}` });
  expect(evilHost.status).toBe(403);
  expect(JSON.parse(evilHost.body)).toMatchObject({ error: { code: "AIRLOCK_API_HOST_NOT_ALLOWED" } });
  const evilOrigin = await raw("/api/tools", {
    origin: "http://evil.example",
    authorization: `Bearer ${f.operatorToken}`,
  });
  expect(evilOrigin.status).toBe(403);
  expect(evilOrigin.body).not.toContain("kit:echo");
  const evilMcp = await raw("/mcp/alpha", {
    host: `evil.example:${server.port}`,
    authorization: `Bearer ${f.agentToken}`,
  });
  expect(evilMcp.status).toBe(403);
  expect(JSON.parse(evilMcp.body)).toMatchObject({ error: { code: "AIRLOCK_API_HOST_NOT_ALLOWED" } });
  const ownOrigin = await raw("/healthz", { origin: server.url });
  expect(ownOrigin.status).toBe(200);
  const localhost = await raw("/healthz", { host: `localhost:${server.port}` });
  expect(localhost.status).toBe(200);
});

test("answers JSON errors over the wire for unknown routes and bad JSON", async () => {
  const missing = await fetch(`${server.url}/nope`);
  expect(missing.status).toBe(404);
  expect(await missing.json()).toMatchObject({ error: { code: "AIRLOCK_API_NOT_FOUND" } });
  const bad = await fetch(`${server.url}/api/instances`, {
    method: "POST",
    headers: { authorization: `Bearer ${f.operatorToken}`, "content-type": "application/json" },
    body: "{not json",
  });
  expect(bad.status).toBe(400);
  expect(await bad.json()).toMatchObject({ error: { code: "AIRLOCK_API_BAD_JSON" } });
});
