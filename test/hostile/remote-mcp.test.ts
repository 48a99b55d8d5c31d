// Attacks from a remote MCP server installed as a plugin: huge answers, silence, redirects
// toward loopback and the cloud metadata address, server-initiated sampling, and install URLs
// aimed at refused addresses. Each refusal is asserted with its exact code, then `contained()`:
// the host keeps serving (/healthz answers and a call of the server's echo tool returns its
// text) and the agent's header secret (the canary the host holds) is in no output the caller got
// (results, refusals' errors), audit row, or host log (internal errors, the admin server's log).
import { createServer, type Server } from "node:http";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { type RemoteHost, startRemoteHost } from "../support/remote-host.ts";
import { type RemoteFixture, startRemoteFixture } from "../support/remote-mcp-fixture.ts";

const CANARY_VALUE = "canary-7f3a9c1e5b2d";
const CANARY = `Bearer ${CANARY_VALUE}`;

let fx: RemoteFixture;
let h: RemoteHost;
/** A listener the redirects point at: it must never be reached. */
let trap: Server;
let trapHits = 0;
/** Everything a caller got back: call outcomes and refused installs' errors, as JSON. */
const outputs: string[] = [];

async function call(tool: string, input: Record<string, unknown> = {}) {
  const run = await h.host.startRun({ agent: "alpha" });
  const outcome = await run.call(`fx:${tool}`, input);
  outputs.push(JSON.stringify(outcome));
  return outcome;
}

/** The refusal `attempt` ends with, kept in `outputs` (code, message, data) for the canary check. */
async function refusal(attempt: Promise<unknown>): Promise<{ code?: string }> {
  try {
    await attempt;
  } catch (error) {
    const { code, message, data } = error as { code?: string; message?: string; data?: unknown };
    outputs.push(JSON.stringify({ code, message, data, error }));
    return { ...(code === undefined ? {} : { code }) };
  }
  throw new Error("expected a refusal");
}

async function healthy() {
  const outcome = await call("echo", { text: "still fine" });
  expect(outcome.result.content).toEqual([{ type: "text", text: "echo: still fine" }]);
}

/** After an attack: the host answers /healthz and a tool call, and the canary is nowhere. */
async function contained(more: string[] = []) {
  expect((await fetch(`${h.server.url}/healthz`)).status).toBe(200);
  await healthy();
  const audit = JSON.stringify(await h.host.queryAudit({ limit: 10_000 }));
  expect([audit, ...outputs, ...h.internal, ...more].join("\n")).not.toContain(CANARY_VALUE);
}

beforeAll(async () => {
  fx = await startRemoteFixture();
  trap = createServer((_req, res) => {
    trapHits++;
    res.end("trapped");
  });
  await new Promise<void>((resolve) => trap.listen(0, "127.0.0.1", resolve));
  h = await startRemoteHost({ limits: { wallMs: 2000, maxResultBytes: 256 * 1024 } });
  await h.host.remote.install(`mcp+${fx.url}`, {
    namespace: "fx",
    allowPrivate: ["127.0.0.1"],
    header: { name: "Authorization", secret: "fx_token" },
  });
  const tools = ["echo", "huge", "hang", "sample"];
  for (const tool of tools) await h.host.remote.setReadOnly("fx", tool, true);
  await h.host.setToolsEnabled("alpha", Object.fromEntries(tools.map((t) => [`fx:${t}`, true])));
  await h.host.setSecrets("alpha", { fx_token: CANARY });
});

afterAll(async () => {
  await h.close();
  await fx.close();
  await new Promise<void>((resolve) => trap.close(() => resolve()));
});

describe("a hostile remote MCP server", () => {
  test("gets the agent's header secret only on its own requests, and the tool is withheld without it", async () => {
    await healthy();
    expect(fx.seenAuth).toContain(CANARY);
    const beta = await h.host.startRun({ agent: "beta" });
    expect(beta.tools()).toEqual([]);
    await h.host.setToolsEnabled("beta", { "fx:echo": true });
    const withheld = await h.host.startRun({ agent: "beta" });
    expect(withheld.tools()).toEqual([]); // enabled, but its required header secret is not set
    const listed = await h.host.listAgentTools("beta");
    outputs.push(JSON.stringify(listed));
    expect(listed.find((t) => t.id === "fx:echo")?.missingSecrets).toEqual(["fx_token"]);
    await contained();
  });

  test("a result over the byte cap is aborted as it streams: AIRLOCK_REMOTE_RESPONSE_TOO_LARGE", async () => {
    const outcome = await call("huge", { bytes: 2 * 1024 * 1024 });
    expect(outcome.errorCode).toBe("AIRLOCK_REMOTE_RESPONSE_TOO_LARGE");
    // Under the wire cap but over maxResultBytes: the pipeline's own cap.
    const over = await call("huge", { bytes: 300 * 1024 });
    expect(over.errorCode).toBe("AIRLOCK_TOOL_RESULT_TOO_LARGE");
    await contained();
  });

  test("a call never answered ends at the wall time with AIRLOCK_TOOL_TIMEOUT", async () => {
    const started = performance.now();
    const outcome = await call("hang");
    expect(outcome.errorCode).toBe("AIRLOCK_TOOL_TIMEOUT");
    expect(outcome.result.content).toEqual([
      { type: "text", text: "Tool fx:hang did not finish within 2000 ms and was stopped." },
    ]);
    // stopped by the wall time, not before it; a call the deadline never stopped fails by the
    // test's timeout (an upper bound in ms would be a benchmark, not a gate)
    expect(performance.now() - started).toBeGreaterThanOrEqual(1_900);
    await contained();
  });

  test("a server that stops answering at all: the run starts anyway and the call times out", async () => {
    fx.mode = "silent";
    try {
      const run = await h.host.startRun({ agent: "alpha" });
      const outcome = await run.call("fx:echo", { text: "hello?" });
      outputs.push(JSON.stringify(outcome));
      expect(outcome.errorCode).toBe("AIRLOCK_TOOL_TIMEOUT");
      expect(outcome.result.content).toEqual([
        { type: "text", text: "Tool fx:echo did not finish within 2000 ms and was stopped." },
      ]);
    } finally {
      fx.mode = "normal";
    }
    await contained();
  });

  test.each([
    ["loopback", () => `http://127.0.0.1:${(trap.address() as { port: number }).port}/mcp`],
    ["the cloud metadata address", () => "http://169.254.169.254/latest/meta-data/"],
  ])("a redirect toward %s is never followed: AIRLOCK_REMOTE_REDIRECT_REFUSED", async (_name, target) => {
    fx.redirectTo = target();
    fx.mode = "redirect";
    try {
      const outcome = await call("echo", { text: "follow me" });
      expect(outcome.errorCode).toBe("AIRLOCK_REMOTE_REDIRECT_REFUSED");
    } finally {
      fx.mode = "normal";
    }
    expect(trapHits).toBe(0);
    await contained();
  });

  test("a sampling request from the server is refused and ends the call: AIRLOCK_REMOTE_SERVER_REQUEST_REFUSED", async () => {
    const outcome = await call("sample");
    expect(outcome.errorCode).toBe("AIRLOCK_REMOTE_SERVER_REQUEST_REFUSED");
    // The server never got a model's answer (at most the refusal, if it arrived before the call ended).
    expect(fx.samplingAnswers.every((a) => !Object.hasOwn(a as object, "result"))).toBe(true);
    expect(fx.methods.get("tools/call")).toBeGreaterThan(0);
    await contained();
  });
});

describe("install URLs aimed at refused addresses", () => {
  test.each([
    [
      "the metadata address",
      "mcp+http://169.254.169.254/mcp",
      ["127.0.0.1"],
      "AIRLOCK_FETCH_ADDRESS_REFUSED",
    ],
    ["loopback without --allow-private", "mcp+https://127.0.0.1:1/mcp", [], "AIRLOCK_FETCH_ADDRESS_REFUSED"],
    ["plain http to a public name", "mcp+http://example.com/mcp", [], "AIRLOCK_REMOTE_SPEC_INVALID"],
    ["another scheme", "mcp+ftp://example.com/mcp", [], "AIRLOCK_REMOTE_SPEC_INVALID"],
    ["credentials in the URL", "mcp+https://user:pw@example.com/mcp", [], "AIRLOCK_REMOTE_SPEC_INVALID"],
  ])("refuses %s with its code and writes nothing", async (_name, url, allowPrivate, code) => {
    expect(await refusal(h.host.remote.install(url, { namespace: "evil", allowPrivate }))).toEqual({ code });
    expect((await h.host.plugins.list()).some((p) => p.namespace === "evil")).toBe(false);
    const [entry] = await h.host.queryAudit({ kind: "admin", plugin: "evil", limit: 1 });
    expect(entry).toMatchObject({ action: "remote.install", success: false, error: code });
    await contained();
  });

  test("a host name that resolves to loopback is refused after resolution", async () => {
    const tricked = await startRemoteHost({ resolver: async () => [{ address: "127.0.0.1", family: 4 }] });
    try {
      // the canary planted in this host too: the fixture installed with its header secret
      await tricked.host.remote.install(`mcp+${fx.url}`, {
        namespace: "fx",
        allowPrivate: ["127.0.0.1"],
        header: { name: "Authorization", secret: "fx_token" },
      });
      await tricked.host.remote.setReadOnly("fx", "echo", true);
      await tricked.host.setToolsEnabled("alpha", { "fx:echo": true });
      await tricked.host.setSecrets("alpha", { fx_token: CANARY });
      const refused = await refusal(
        tricked.host.remote.install(`mcp+https://mcp.example.com:${fx.port}/mcp`, {
          namespace: "evil",
          header: { name: "Authorization", secret: "fx_token" },
        }),
      );
      expect(refused).toEqual({ code: "AIRLOCK_FETCH_ADDRESS_REFUSED" });
      // the refusing host goes on serving: nothing installed, the refusal audited with its code
      expect((await fetch(`${tricked.server.url}/healthz`)).status).toBe(200);
      const served = await (await tricked.host.startRun({ agent: "alpha" })).call("fx:echo", {
        text: "served",
      });
      outputs.push(JSON.stringify(served));
      expect(served.result.content).toEqual([{ type: "text", text: "echo: served" }]);
      expect((await tricked.host.plugins.list()).some((p) => p.namespace === "evil")).toBe(false);
      const [entry] = await tricked.host.queryAudit({ kind: "admin", plugin: "evil", limit: 1 });
      expect(entry).toMatchObject({
        action: "remote.install",
        success: false,
        error: "AIRLOCK_FETCH_ADDRESS_REFUSED",
      });
      const trail = JSON.stringify(await tricked.host.queryAudit({ limit: 1000 }));
      await contained([trail, ...tricked.internal]);
    } finally {
      await tricked.close();
    }
  });

  test("refuses a header the transport owns, and a reserved namespace", async () => {
    const header = await refusal(
      h.host.remote.install(`mcp+${fx.url}`, {
        namespace: "evil",
        allowPrivate: ["127.0.0.1"],
        header: { name: "Host", secret: "fx_token" },
      }),
    );
    expect(header).toEqual({ code: "AIRLOCK_REMOTE_SPEC_INVALID" });
    await contained();
    const reserved = await refusal(
      h.host.remote.install(`mcp+${fx.url}`, {
        namespace: "airlock",
        allowPrivate: ["127.0.0.1"],
        header: { name: "Authorization", secret: "fx_token" },
      }),
    );
    expect(reserved).toEqual({ code: "AIRLOCK_REMOTE_SPEC_INVALID" });
    expect((await h.host.plugins.list()).map((p) => p.namespace)).toEqual(["fx"]);
    for (const namespace of ["evil", "airlock"]) {
      const [entry] = await h.host.queryAudit({ kind: "admin", plugin: namespace, limit: 1 });
      expect(entry).toMatchObject({
        action: "remote.install",
        success: false,
        error: "AIRLOCK_REMOTE_SPEC_INVALID",
      });
    }
    await contained();
  });
});
