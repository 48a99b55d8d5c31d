// The SSE event stream, read in-process: events arrive with type, id and JSON data carrying
// toolName and presentation; an agent token sees its own agent's events only.
import type { Hono } from "hono";
import { afterAll, beforeAll, expect, test } from "vitest";
import { createAdminApi } from "./app.ts";
import { createSurfaceFixture, type SurfaceFixture } from "./test-support.ts";

let f: SurfaceFixture;
let app: Hono;

beforeAll(async () => {
  f = await createSurfaceFixture();
  await f.host.setToolsEnabled("beta", { "kit:echo": true });
  app = createAdminApi(f.host, { mcp: false, eventKeepAliveMs: 0, maxEventStreams: 2, log: () => undefined });
});
afterAll(async () => {
  await f.close();
});

interface SseEvent {
  event: string;
  id: string;
  data: Record<string, unknown>;
}

/** Reads SSE frames until `done` says so; returns the events and comments seen. */
async function openStream(token: string, query = "") {
  const res = await app.request(`/api/events${query}`, { headers: { authorization: `Bearer ${token}` } });
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toContain("text/event-stream");
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  const events: SseEvent[] = [];
  const comments: string[] = [];
  async function until(done: () => boolean): Promise<void> {
    while (!done()) {
      const { value, done: ended } = await reader.read();
      if (ended) throw new Error("stream ended");
      buffer += decoder.decode(value, { stream: true });
      let at = buffer.indexOf("\n\n");
      while (at >= 0) {
        const frame = buffer.slice(0, at);
        buffer = buffer.slice(at + 2);
        if (frame.startsWith(":")) comments.push(frame.slice(1).trim());
        else {
          const field = (name: string) =>
            frame
              .split("\n")
              .find((l) => l.startsWith(`${name}: `))
              ?.slice(name.length + 2) ?? "";
          events.push({
            event: field("event"),
            id: field("id"),
            data: JSON.parse(field("data")) as Record<string, unknown>,
          });
        }
        at = buffer.indexOf("\n\n");
      }
    }
  }
  await until(() => comments.includes("connected"));
  return { events, until, close: () => reader.cancel() };
}

test("streams tool events with toolName and presentation", async () => {
  const stream = await openStream(f.operatorToken);
  await f.host.callTool("alpha", "kit:echo", { text: "x" });
  await stream.until(() => stream.events.some((e) => e.event === "tool.completed"));
  const started = stream.events.find((e) => e.event === "tool.started");
  expect(started?.data).toMatchObject({
    agent: "alpha",
    toolName: "kit:echo",
    presentation: { label: "Echo" },
  });
  expect(Number(stream.events.at(-1)?.id)).toBeGreaterThan(Number(started?.id));
  await stream.close();
});

test("streams a tool's progress and log lines as tool.progress events", async () => {
  const stream = await openStream(f.operatorToken, "?types=tool.progress");
  await f.host.callTool("alpha", "kit:slow", {});
  await stream.until(() => stream.events.length >= 3);
  expect(stream.events.map((e) => e.data.notification)).toEqual([
    { type: "progress", progress: 1, total: 2, message: "half" },
    { type: "log", level: "info", message: "halfway there" },
    { type: "progress", progress: 2, total: 2, message: "done" },
  ]);
  await stream.close();
});

test("shows an agent token only its own agent's events", async () => {
  const stream = await openStream(f.agentToken);
  await f.host.callTool("beta", "kit:echo", { text: "for beta" });
  await f.host.callTool("alpha", "kit:echo", { text: "for alpha" });
  await stream.until(() => stream.events.some((e) => e.event === "tool.completed"));
  expect(stream.events.length).toBeGreaterThan(0);
  expect(stream.events.every((e) => e.data.agent === "alpha")).toBe(true);
  await stream.close();
});

test("refuses an agent token asking for another agent's events", async () => {
  const res = await app.request("/api/events?agent=beta", {
    headers: { authorization: `Bearer ${f.agentToken}` },
  });
  expect(res.status).toBe(403);
  expect(((await res.json()) as { error: { code: string } }).error.code).toBe("AIRLOCK_API_FORBIDDEN");
});

test("sends only the event types asked for", async () => {
  const stream = await openStream(f.operatorToken, "?types=tool.failed");
  await f.host.callTool("alpha", "kit:echo", { text: "ok" });
  await f.host.callTool("alpha", "kit:nothere", {});
  await stream.until(() => stream.events.length > 0);
  expect(stream.events.map((e) => e.event)).toEqual(["tool.failed"]);
  await stream.close();
});

test("caps the number of open streams and frees a slot when a client goes away", async () => {
  const first = await openStream(f.operatorToken);
  const second = await openStream(f.agentToken);
  const third = await app.request("/api/events", { headers: { authorization: `Bearer ${f.operatorToken}` } });
  expect(third.status).toBe(429);
  expect(((await third.json()) as { error: { code: string } }).error.code).toBe(
    "AIRLOCK_API_TOO_MANY_STREAMS",
  );
  await first.close();
  const again = await openStream(f.operatorToken);
  await again.close();
  await second.close();
});

test("one agent token opening streams up to its cap does not stop the operator opening one", async () => {
  const capped = createAdminApi(f.host, {
    mcp: false,
    eventKeepAliveMs: 0,
    maxEventStreams: 8,
    maxEventStreamsPerPrincipal: 3,
    log: () => undefined,
  });
  const open = (token: string) =>
    capped.request("/api/events", { headers: { authorization: `Bearer ${token}` } });
  const held: Response[] = [];
  for (let i = 0; i < 3; i++) {
    const res = await open(f.agentToken);
    expect(res.status).toBe(200);
    held.push(res);
  }
  const fourth = await open(f.agentToken);
  expect(fourth.status).toBe(429);
  expect(await fourth.json()).toMatchObject({
    error: { code: "AIRLOCK_API_TOO_MANY_STREAMS", details: { limit: 3, scope: "principal" } },
  });
  const operator = await open(f.operatorToken);
  expect(operator.status).toBe(200);
  for (const res of [...held, operator]) await res.body?.cancel();
});

test("agents together leave the operators' reserve free", async () => {
  const capped = createAdminApi(f.host, {
    mcp: false,
    eventKeepAliveMs: 0,
    maxEventStreams: 2,
    log: () => undefined,
  });
  const agent = await capped.request("/api/events", { headers: { authorization: `Bearer ${f.agentToken}` } });
  expect(agent.status).toBe(200);
  const second = await capped.request("/api/events", {
    headers: { authorization: `Bearer ${f.agentToken}` },
  });
  expect(second.status).toBe(429);
  const operator = await capped.request("/api/events", {
    headers: { authorization: `Bearer ${f.operatorToken}` },
  });
  expect(operator.status).toBe(200);
  await agent.body?.cancel();
  await operator.body?.cancel();
});

test("names the replica that served each event", async () => {
  const stream = await openStream(f.operatorToken);
  await f.host.callTool("alpha", "kit:echo", { text: "x" });
  await stream.until(() => stream.events.some((e) => e.event === "tool.completed"));
  expect(stream.events.every((e) => e.data.replica === f.host.replica)).toBe(true);
  await stream.close();
});
