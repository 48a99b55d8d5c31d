// Sessions toward a remote MCP server are kept and reused (host/src/engine/remote/session-pool.ts): the
// handshake is made once per (server, auth identity), later calls cost a listing and the call;
// an agent with another header secret gets a session of its own; a session the server forgot
// (404 on its id, a restart) is replaced within the same call; a failed call's session is never
// reused; `remote.sessionIdleMs: 0` opens one per call; uninstalling closes the idle ones.
// The fixture is the SDK v2 server made stateful at the HTTP level (session ids, 404 for an unknown one).
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { type RemoteHost, startRemoteHost } from "../support/remote-host.ts";
import { type RemoteFixture, startRemoteFixture } from "../support/remote-mcp-fixture.ts";

let fx: RemoteFixture;
let h: RemoteHost;

const count = (method: string) => fx.methods.get(method) ?? 0;

async function call(agent: string, tool: string, input: Record<string, unknown>) {
  return h.host.callTool(agent, `fx:${tool}`, input);
}

beforeAll(async () => {
  fx = await startRemoteFixture();
  fx.sessions = true;
  h = await startRemoteHost({ limits: { wallMs: 15_000 } });
  await h.host.remote.install(`mcp+${fx.url}`, {
    namespace: "fx",
    allowPrivate: ["127.0.0.1"],
    header: { name: "Authorization", secret: "fx_token" },
  });
  for (const agent of ["alpha", "beta"]) {
    await h.host.setToolsEnabled(agent, { "fx:echo": true, "fx:huge": true });
    await h.host.setSecrets(agent, { fx_token: `Bearer token-of-${agent}` });
  }
  await h.host.remote.setReadOnly("fx", "echo", true);
  await h.host.remote.setReadOnly("fx", "huge", true);
}, 60_000);
afterAll(async () => {
  await h?.close();
  await fx?.close();
});

describe("sessions toward a remote MCP server", () => {
  test("are opened once per auth identity and reused by later calls", async () => {
    const first = await call("alpha", "echo", { text: "one" });
    expect(first.errorCode).toBeUndefined();
    const initialized = count("initialize");
    const opened = h.host.remote.sessions().opened;
    for (const text of ["two", "three", "four"]) {
      const outcome = await call("alpha", "echo", { text });
      expect(outcome.result.content).toEqual([{ type: "text", text: `echo: ${text}` }]);
    }
    expect(count("initialize")).toBe(initialized);
    expect(h.host.remote.sessions().opened).toBe(opened);
    expect(h.host.remote.sessions().reused).toBeGreaterThanOrEqual(3);

    // beta's secret is another identity: a session of its own, with beta's header only.
    const seen = fx.seenAuth.length;
    expect((await call("beta", "echo", { text: "b" })).errorCode).toBeUndefined();
    expect(count("initialize")).toBe(initialized + 1);
    expect(new Set(fx.seenAuth.slice(seen))).toEqual(new Set(["Bearer token-of-beta"]));
    const again = fx.seenAuth.length;
    expect((await call("alpha", "echo", { text: "a" })).errorCode).toBeUndefined();
    expect(count("initialize")).toBe(initialized + 1);
    expect(new Set(fx.seenAuth.slice(again))).toEqual(new Set(["Bearer token-of-alpha"]));
  });

  test("a changed secret is a new identity: its calls never ride the old session", async () => {
    const before = count("initialize");
    await h.host.setSecrets("alpha", { fx_token: "Bearer rotated" });
    const seen = fx.seenAuth.length;
    expect((await call("alpha", "echo", { text: "r" })).errorCode).toBeUndefined();
    expect(count("initialize")).toBe(before + 1);
    expect(new Set(fx.seenAuth.slice(seen))).toEqual(new Set(["Bearer rotated"]));
  });

  test("a session the server forgot is replaced within the call", async () => {
    expect((await call("alpha", "echo", { text: "warm" })).errorCode).toBeUndefined();
    const before = count("initialize");
    fx.forgetSessions();
    const outcome = await call("alpha", "echo", { text: "after restart" });
    expect(outcome.errorCode).toBeUndefined();
    expect(outcome.result.content).toEqual([{ type: "text", text: "echo: after restart" }]);
    expect(count("initialize")).toBe(before + 1);
  });

  test("a call that failed leaves no session for the next one", async () => {
    expect((await call("alpha", "echo", { text: "warm" })).errorCode).toBeUndefined();
    const big = await call("alpha", "huge", { bytes: 2 * 1024 * 1024 });
    expect(big.errorCode).toBe("AIRLOCK_REMOTE_RESPONSE_TOO_LARGE");
    const before = count("initialize");
    expect((await call("alpha", "echo", { text: "next" })).errorCode).toBeUndefined();
    expect(count("initialize")).toBe(before + 1);
    expect((await fetch(`${h.server.url}/healthz`)).status).toBe(200);
  });

  test("uninstalling the server closes its idle sessions", async () => {
    expect((await call("alpha", "echo", { text: "warm" })).errorCode).toBeUndefined();
    expect(h.host.remote.sessions().idle).toBeGreaterThan(0);
    await h.host.plugins.uninstall("fx");
    expect(h.host.remote.sessions().idle).toBe(0);
  });
});

describe("with remote.sessionIdleMs 0", () => {
  test("every call opens its own session", async () => {
    const own = await startRemoteHost({ remote: { sessionIdleMs: 0 } });
    try {
      await own.host.remote.install(`mcp+${fx.url}`, { namespace: "fx", allowPrivate: ["127.0.0.1"] });
      await own.host.setToolsEnabled("alpha", { "fx:echo": true });
      await own.host.remote.setReadOnly("fx", "echo", true);
      const before = count("initialize");
      for (const text of ["1", "2", "3"]) {
        expect((await own.host.callTool("alpha", "fx:echo", { text })).errorCode).toBeUndefined();
      }
      expect(count("initialize") - before).toBeGreaterThanOrEqual(3);
      expect(own.host.remote.sessions()).toMatchObject({ reused: 0, idle: 0 });
    } finally {
      await own.close();
    }
  });
});
