// Hostile: servers that never answer, answer slowly, or send more than the host accepts, and
// requests over the host's caps. Each fails with its exact code (TIMEOUT, RESPONSE_TOO_LARGE,
// REQUEST_TOO_LARGE, ABORTED), the body is cut off while streaming (an endless body ends the
// test, so the cap cannot be after-the-fact), and the gate keeps working.
import type { ServerResponse } from "node:http";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  containmentProblems,
  endlessBody,
  fetchHarness,
  startServer,
  type TestServer,
} from "../../host/src/isolation/egress/test-support.ts";

const SECRET = "sk-hostile-limits-c0ffee42";
let server: TestServer;
let health: TestServer;
const parked: ServerResponse[] = [];

beforeAll(async () => {
  server = await startServer((req, res) => {
    if (req.url === "/endless") return endlessBody(res);
    if (req.url === "/big") {
      res.writeHead(200, { "content-length": String(300 * 1024) });
      res.end(Buffer.alloc(300 * 1024, 97));
      return;
    }
    if (req.url === "/silent") {
      parked.push(res); // never answers
      return;
    }
    if (req.url === "/stall-body") {
      res.writeHead(200, { "content-type": "text/plain" });
      res.write("first bytes, then nothing");
      parked.push(res);
      return;
    }
    res.end("small");
  });
  health = await startServer((_req, res) => res.end("ok"));
});
afterAll(async () => {
  for (const res of parked) res.destroy();
  await server.close();
  await health.close();
});

function harness(limits: Record<string, number> = {}, signal?: AbortSignal) {
  return fetchHarness({
    health,
    egress: [{ host: "api.test", schemes: ["http"], ports: [server.port], secrets: ["api_key"] }],
    table: { "api.test": "127.0.0.1" },
    allowPrivate: ["127.0.0.1"],
    secrets: ["api_key"],
    values: { api_key: SECRET },
    limits: { maxResponseBytes: 64 * 1024, ...limits },
    ...(signal === undefined ? {} : { signal }),
  });
}

const key = { authorization: { $secretRef: "api_key" } };

// Every test here ends contained: each harness it made still serves an allowed request and no
// secret value appears in any request's output or audit entry (see containmentProblems).
afterEach(async () => {
  expect(await containmentProblems()).toEqual([]);
});

describe("hostile egress: limits", () => {
  it("aborts an endless body at maxResponseBytes with AIRLOCK_FETCH_RESPONSE_TOO_LARGE", async () => {
    const h = harness();
    const err = await h.refusal(`http://api.test:${server.port}/endless`, { headers: key });
    expect(err.code).toBe("AIRLOCK_FETCH_RESPONSE_TOO_LARGE");
    expect(err.details).toMatchObject({ limit: 64 * 1024 });
    expect(h.sink.entries[0]).toMatchObject({ allowed: true, success: false, error: err.code });
    expect(await h.healthy()).toBe(true);
    expect(h.leakFree(err)).toBe(true);
  });

  it("caps a body at the call's memory budget when that is below maxResponseBytes", async () => {
    const h = fetchHarness({
      health,
      egress: [{ host: "api.test", schemes: ["http"], ports: [server.port] }],
      table: { "api.test": "127.0.0.1" },
      allowPrivate: ["127.0.0.1"],
      limits: { maxResponseBytes: 1024 * 1024 },
      maxInboundBytes: 32 * 1024,
    });
    const err = await h.refusal(`http://api.test:${server.port}/endless`);
    expect(err.code).toBe("AIRLOCK_FETCH_RESPONSE_TOO_LARGE");
    expect(err.details).toMatchObject({ limit: 32 * 1024 });
    expect((await h.request(`http://api.test:${server.port}/small`)).status).toBe(200);
    expect(await h.healthy()).toBe(true);
  });

  it("refuses a body whose Content-Length is over the cap before reading it", async () => {
    const h = harness();
    const err = await h.refusal(`http://api.test:${server.port}/big`);
    expect(err.code).toBe("AIRLOCK_FETCH_RESPONSE_TOO_LARGE");
    const bigger = harness({ maxResponseBytes: 512 * 1024 });
    expect((await bigger.request(`http://api.test:${server.port}/big`)).body.byteLength).toBe(300 * 1024);
  });

  it("times out a server that never answers with AIRLOCK_FETCH_TIMEOUT", async () => {
    const h = harness({ timeoutMs: 400 });
    const err = await h.refusal(`http://api.test:${server.port}/silent`, { headers: key });
    expect(err.code).toBe("AIRLOCK_FETCH_TIMEOUT");
    expect(h.sink.entries[0]).toMatchObject({ error: "AIRLOCK_FETCH_TIMEOUT", success: false });
    expect(await h.healthy()).toBe(true);
    expect(h.leakFree(err)).toBe(true);
  });

  it("times out a body that stalls after its first bytes", async () => {
    const h = harness({ timeoutMs: 400 });
    const err = await h.refusal(`http://api.test:${server.port}/stall-body`);
    expect(err.code).toBe("AIRLOCK_FETCH_TIMEOUT");
    expect(await h.healthy()).toBe(true);
  });

  it("lets a request's own timeoutMs lower the host's, never raise it", async () => {
    const h = harness({ timeoutMs: 20_000 });
    const err = await h.refusal(`http://api.test:${server.port}/silent`, { timeoutMs: 300 });
    expect(err.code).toBe("AIRLOCK_FETCH_TIMEOUT");
  });

  it("fails with AIRLOCK_FETCH_ABORTED when the tool call ends mid-request", async () => {
    const call = new AbortController();
    const h = harness({}, call.signal);
    const silent = () => server.seen.filter((s) => s.url === "/silent").length;
    const before = silent();
    const pending = h.refusal(`http://api.test:${server.port}/silent`);
    // Abort only once the server holds the request, so the abort hits an in-flight exchange.
    while (silent() === before) {
      await new Promise((resolve) => setImmediate(resolve));
    }
    call.abort();
    const err = await pending;
    expect(err.code).toBe("AIRLOCK_FETCH_ABORTED");
    expect(h.sink.entries[0]).toMatchObject({ error: "AIRLOCK_FETCH_ABORTED" });
  });

  it("refuses a request body over maxRequestBytes before connecting", async () => {
    const h = harness({ maxRequestBytes: 1024 });
    const before = server.connections();
    const err = await h.refusal(`http://api.test:${server.port}/`, {
      method: "POST",
      body: "x".repeat(1025),
    });
    expect(err.code).toBe("AIRLOCK_FETCH_REQUEST_TOO_LARGE");
    expect(err.details).toMatchObject({ limit: 1024 });
    expect(server.connections()).toBe(before);
    expect(await h.healthy()).toBe(true);
  });
});
