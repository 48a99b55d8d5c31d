// The fetch capability's allowed paths, against real loopback servers: what reaches the server,
// what comes back, how redirects are followed, and what the audit records.
import { hasCode } from "@airlock/sdk/errors";
import type { EgressRule } from "@airlock/sdk/manifest";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createBridge } from "../bridge/bridge.ts";
import { createFetchCapability } from "./fetch-capability.ts";
import {
  auditSink,
  secretSource,
  startServer,
  type TestServer,
  tableResolver,
  testGrant,
} from "./test-support.ts";
import type { FetchResult } from "./types.ts";

let server: TestServer;
let other: TestServer;

beforeEach(async () => {
  server = await startServer((req, res) => {
    if (req.url === "/loop") {
      res.writeHead(302, { location: "/loop" });
      res.end();
      return;
    }
    if (req.url.startsWith("/redirect/")) {
      const [, , status, ...rest] = req.url.split("/");
      res.writeHead(Number(status), { location: decodeURIComponent(rest.join("/")) });
      res.end();
      return;
    }
    res.setHeader("set-cookie", ["a=1", "b=2"]);
    res.writeHead(200, { "content-type": "text/plain", "x-method": req.method });
    res.end(req.method === "HEAD" ? undefined : `hello ${req.method} ${req.body.toString("utf8")}`);
  });
  other = await startServer((_req, res) => res.end("other"));
});

afterEach(async () => {
  await server.close();
  await other.close();
});

function setup(egress: EgressRule[], extra: { secrets?: string[]; hosts?: never } = {}) {
  const sink = auditSink();
  const resolver = tableResolver({ "api.test": "127.0.0.1", "other.test": "127.0.0.1" });
  const cap = createFetchCapability({
    secrets: secretSource({ "agent-1": { api_key: "sk-live-0123456789" } }),
    policy: { allowPrivate: ["127.0.0.1"] },
    resolver,
    audit: sink.audit,
    limits: { timeoutMs: 10_000 },
  });
  const grant = testGrant({ egress, ...(extra.secrets ? { secrets: extra.secrets } : {}) });
  const request = (url: string, init?: unknown) =>
    cap.methods.request?.(grant, [url, init]) as Promise<FetchResult>;
  return { cap, grant, request, sink, resolver };
}

const api = (port: number, more: Partial<EgressRule> = {}): EgressRule => ({
  host: "api.test",
  schemes: ["http"],
  ports: [port],
  ...more,
});

describe("fetch.request on an allowed host", () => {
  it("returns status, headers, final URL and the body bytes, and sends host-owned headers", async () => {
    const { request } = setup([api(server.port)]);
    const res = await request(`http://api.test:${server.port}/hi?x=1#frag`);
    expect(res.status).toBe(200);
    expect(res.statusText).toBe("OK");
    expect(res.redirected).toBe(false);
    expect(res.url).toBe(`http://api.test:${server.port}/hi?x=1`);
    expect(res.headers["content-type"]).toBe("text/plain");
    expect(res.headers["set-cookie"]).toBe("a=1, b=2");
    expect(res.body).toBeInstanceOf(Uint8Array);
    expect(Buffer.from(res.body).toString("utf8")).toBe("hello GET ");
    const seen = server.seen[0];
    expect(seen?.url).toBe("/hi?x=1");
    expect(seen?.headers.host).toBe(`api.test:${server.port}`);
    expect(seen?.headers["accept-encoding"]).toBe("identity");
    expect(seen?.headers["user-agent"]).toBe("airlock-fetch/1");
  });

  it("sends a POST body and the plugin's own headers", async () => {
    const { request } = setup([api(server.port)]);
    const res = await request(`http://api.test:${server.port}/p`, {
      method: "post",
      headers: { "Content-Type": "application/json", "X-Trace": "t1", "User-Agent": "mine/2" },
      body: '{"a":1}',
    });
    expect(Buffer.from(res.body).toString()).toBe('hello POST {"a":1}');
    const seen = server.seen[0];
    expect(seen?.headers["content-type"]).toBe("application/json");
    expect(seen?.headers["x-trace"]).toBe("t1");
    expect(seen?.headers["user-agent"]).toBe("mine/2");
    expect(seen?.headers["content-length"]).toBe("7");
  });

  it("accepts a Uint8Array body and answers HEAD with an empty body", async () => {
    const { request } = setup([api(server.port)]);
    await request(`http://api.test:${server.port}/b`, { method: "PUT", body: new Uint8Array([104, 105]) });
    expect(server.seen[0]?.body.toString()).toBe("hi");
    const head = await request(`http://api.test:${server.port}/h`, { method: "HEAD" });
    expect(head.headers["x-method"]).toBe("HEAD");
    expect(head.body.byteLength).toBe(0);
  });

  it("accepts a fractional or over-long init.timeoutMs (rounded up, capped by the host)", async () => {
    const { request } = setup([api(server.port)]);
    expect((await request(`http://api.test:${server.port}/t`, { timeoutMs: 2500.5 })).status).toBe(200);
    expect((await request(`http://api.test:${server.port}/t`, { timeoutMs: 1e12 })).status).toBe(200);
  });

  it("reaches a declared IP literal when the operator allows that address", async () => {
    const { request } = setup([{ host: "127.0.0.1", schemes: ["http"], ports: [server.port] }]);
    const res = await request(server.url("/lit"));
    expect(res.status).toBe(200);
  });

  it("uses the system resolver by default (localhost, allowed by name, from the hosts file)", async () => {
    const cap = createFetchCapability({
      secrets: secretSource({}),
      policy: { allowPrivate: ["localhost"] },
      audit: auditSink().audit,
    });
    const grant = testGrant({ egress: [{ host: "localhost", schemes: ["http"], ports: [server.port] }] });
    const res = (await cap.methods.request?.(grant, [`http://localhost:${server.port}/sys`])) as FetchResult;
    expect(res.status).toBe(200);
    expect(server.seen.at(-1)?.headers.host).toBe(`localhost:${server.port}`);
  });

  it("resolves the name once per hop and connects to the address it checked", async () => {
    const { request, resolver } = setup([api(server.port)]);
    await request(`http://api.test:${server.port}/once`);
    expect(resolver.asked).toEqual(["api.test"]);
  });

  it("audits each request once with host, method, status, bytes and duration, and not via the bridge", async () => {
    const { request, sink, cap, grant } = setup([api(server.port)]);
    await request(`http://api.test:${server.port}/secret-path?q=private`);
    expect(cap.auditedByBridge?.("request")).toBe(false);
    expect(sink.entries).toHaveLength(1);
    const entry = sink.entries[0];
    expect(entry).toMatchObject({
      agent: "agent-1",
      plugin: grant.namespace,
      tool: grant.tool,
      conversationId: "conv-1",
      kind: "capability",
      action: "fetch.request",
      allowed: true,
      success: true,
      error: null,
    });
    expect(entry?.details).toMatchObject({
      plugin: grant.namespace,
      tool: grant.toolId,
      host: "api.test",
      method: "GET",
      status: 200,
      bytes: "hello GET ".length,
      redirects: 0,
    });
    expect(typeof entry?.details?.durationMs).toBe("number");
    expect(JSON.stringify(entry)).not.toContain("secret-path");
    expect(JSON.stringify(entry)).not.toContain("private");
  });
});

describe("fetch.request through the bridge", () => {
  it("writes exactly one audit entry per request, allowed or refused", async () => {
    const { cap, sink } = setup([api(server.port)]);
    const bridge = createBridge({ capabilities: [cap], audit: sink.audit });
    const grant = bridge.issueGrant({
      agent: "agent-1",
      conversationId: "conv-1",
      manifest: testGrant({ egress: [api(server.port)] }).manifest,
      tool: "call",
      knowledgeLevel: null,
      capabilityCalls: 10,
    });
    const ok = (await bridge.dispatch(grant.token, "fetch", "request", [
      `http://api.test:${server.port}/via-bridge`,
    ])) as FetchResult;
    expect(ok.status).toBe(200);
    const refused = await bridge
      .dispatch(grant.token, "fetch", "request", ["http://nowhere.test/"])
      .catch((e: unknown) => e);
    expect(hasCode(refused, "AIRLOCK_FETCH_HOST_NOT_ALLOWED")).toBe(true);
    expect(sink.entries.map((e) => [e.action, e.allowed, e.error])).toEqual([
      ["fetch.request", true, null],
      ["fetch.request", false, "AIRLOCK_FETCH_HOST_NOT_ALLOWED"],
    ]);
  });
});

describe("fetch.request following redirects", () => {
  const to = (status: number, target: string) => `/redirect/${status}/${encodeURIComponent(target)}`;

  it("follows a relative redirect, reporting the final URL", async () => {
    const { request, sink } = setup([api(server.port)]);
    const res = await request(`http://api.test:${server.port}${to(302, "/final")}`);
    expect(res.redirected).toBe(true);
    expect(res.url).toBe(`http://api.test:${server.port}/final`);
    expect(sink.entries[0]?.details).toMatchObject({ redirects: 1, status: 200 });
  });

  it("turns a POST into a body-less GET on 303 and 302, and keeps it on 307", async () => {
    const { request } = setup([api(server.port)]);
    const init = { method: "POST", body: "payload", headers: { "content-type": "text/plain" } };
    await request(`http://api.test:${server.port}${to(303, "/a")}`, init);
    await request(`http://api.test:${server.port}${to(302, "/b")}`, init);
    await request(`http://api.test:${server.port}${to(307, "/c")}`, init);
    const byPath = Object.fromEntries(server.seen.map((s) => [s.url, s]));
    expect(byPath["/a"]?.method).toBe("GET");
    expect(byPath["/a"]?.body.byteLength).toBe(0);
    expect(byPath["/a"]?.headers["content-type"]).toBeUndefined();
    expect(byPath["/b"]?.method).toBe("GET");
    expect(byPath["/c"]?.method).toBe("POST");
    expect(byPath["/c"]?.body.toString()).toBe("payload");
  });

  it("drops the plugin's Authorization header on a cross-origin redirect", async () => {
    const { request } = setup([api(server.port), api(other.port, { host: "other.test" })]);
    const res = await request(
      `http://api.test:${server.port}${to(302, `http://other.test:${other.port}/x`)}`,
      {
        headers: { authorization: "Basic plugin-own", "x-keep": "1" },
      },
    );
    expect(Buffer.from(res.body).toString()).toBe("other");
    expect(server.seen[0]?.headers.authorization).toBe("Basic plugin-own");
    expect(other.seen[0]?.headers.authorization).toBeUndefined();
    expect(other.seen[0]?.headers["x-keep"]).toBe("1");
  });

  it("stops an endless redirect loop with AIRLOCK_FETCH_TOO_MANY_REDIRECTS after the default 5", async () => {
    const { request } = setup([api(server.port)]);
    const err = await request(`http://api.test:${server.port}${to(302, "/redirect/302/%2Floop")}`).catch(
      (e: unknown) => e,
    );
    expect(hasCode(err, "AIRLOCK_FETCH_TOO_MANY_REDIRECTS")).toBe(true);
    expect(server.seen).toHaveLength(6);
  });
});
