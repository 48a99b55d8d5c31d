// The 2026-07-28 fast lane (host/src/surfaces/mcp/era-2026/fast-lane.ts) against the SDK path it
// stands in for: one host, two listeners (the lane on, and `fastLane: false`), the same raw
// requests to both; every answer must be the same JSON apart from per-call ids and sealed state.
// Requests the lane must leave to the SDK (a progress token, a log level, mismatched standard
// headers, a schema the SDK refuses) are counted as the SDK's.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { type AdminServer, startAdminServer } from "../../host/src/surfaces/http/server.ts";
import { createSurfaceFixture, type SurfaceFixture } from "../../host/src/surfaces/http/test-support.ts";

let f: SurfaceFixture;
let lane: AdminServer;
let sdk: AdminServer;

beforeAll(async () => {
  f = await createSurfaceFixture({ enable: ["echo", "picture", "fail", "slow", "write", "keyed"] });
  lane = await startAdminServer(f.host, { port: 0, log: () => undefined, mcp: { pageSize: 2 } });
  sdk = await startAdminServer(f.host, {
    port: 0,
    log: () => undefined,
    mcp: { pageSize: 2, fastLane: false },
  });
});
afterAll(async () => {
  await lane.close();
  await sdk.close();
  await f.close();
});

const ENVELOPE = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" },
  "io.modelcontextprotocol/clientCapabilities": {},
};

interface Sent {
  status: number;
  type: string | null;
  json: Record<string, unknown>;
}

/**
 * One raw POST to the agent's endpoint with the agent's token: its status, content type and
 * headers, and the JSON it carried (each SSE event's data, in order, when the answer streamed).
 */
async function raw(server: AdminServer, headers: Record<string, string>, message: Record<string, unknown>) {
  const response = await fetch(server.mcpUrl(f.agent), {
    method: "POST",
    headers: {
      authorization: `Bearer ${f.agentToken}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...headers,
    },
    body: JSON.stringify({ jsonrpc: "2.0", ...message }),
  });
  const type = response.headers.get("content-type");
  const text = await response.text();
  const events = type?.startsWith("text/event-stream")
    ? text
        .split("\n")
        .filter((line) => line.startsWith("data: "))
        .map((line) => JSON.parse(line.slice(6)) as unknown)
    : [JSON.parse(text) as unknown];
  return { status: response.status, type, headers: response.headers, events };
}

/** A 2026-07-28 request; an answer that streams (a progress token) is read as its last event. */
async function post(
  server: AdminServer,
  method: string,
  params: Record<string, unknown>,
  headers: Record<string, string> = {},
): Promise<Sent> {
  const name = typeof params.name === "string" ? { "mcp-name": params.name } : {};
  const sent = await raw(
    server,
    { "mcp-protocol-version": "2026-07-28", "mcp-method": method, ...name, ...headers },
    { id: 7, method, params },
  );
  return {
    status: sent.status,
    type: sent.type,
    json: (sent.events.at(-1) ?? {}) as Record<string, unknown>,
  };
}

/** The answer with what differs per call blanked: ids, sealed state and tickets, the listener's port. */
function comparable(sent: Sent): Sent {
  const text = JSON.stringify(sent.json)
    .replace(/"call_[0-9a-f-]{36}"/g, '"call_*"')
    .replace(/apr_[0-9a-f-]{36}/g, "apr_*")
    .replace(/http:\/\/127\.0\.0\.1:[0-9]+/g, "http://listener")
    .replace(/\/secrets\/[^"]+"/g, '/secrets/*"')
    .replace(/"requestState":"[^"]+"/g, '"requestState":"*"');
  return { ...sent, json: JSON.parse(text) as Record<string, unknown> };
}

/** Asks both listeners; answers the lane's answer after checking the SDK gave the same. */
async function both(method: string, params: Record<string, unknown>): Promise<Sent> {
  const before = lane.mcpStats()!;
  const ours = await post(lane, method, params);
  expect(lane.mcpStats()!.modernLane).toBe(before.modernLane + 1);
  const sdkBefore = sdk.mcpStats()!;
  const theirs = await post(sdk, method, params);
  expect(sdk.mcpStats()!.modernSdk).toBe(sdkBefore.modernSdk + 1);
  expect(comparable(ours)).toEqual(comparable(theirs));
  return ours;
}

const call = (name: string, args: Record<string, unknown>) => ({ name, arguments: args, _meta: ENVELOPE });

describe("the 2026-07-28 fast lane answers as the SDK path does", () => {
  test("tools/list, its pages and a cursor it did not issue", async () => {
    const first = await both("tools/list", { _meta: ENVELOPE });
    const result = first.json.result as { tools: Array<{ name: string }>; nextCursor?: string };
    expect(result.tools.map((t) => t.name)).toEqual(["kit__echo", "kit__fail"]);
    expect(first.json.result).toMatchObject({ resultType: "complete", ttlMs: 0, cacheScope: "private" });
    const second = await both("tools/list", { cursor: result.nextCursor, _meta: ENVELOPE });
    expect((second.json.result as { tools: Array<{ name: string }> }).tools.map((t) => t.name)).toEqual([
      "kit__picture",
      "kit__slow",
    ]);
    const bogus = await both("tools/list", { cursor: "not-ours", _meta: ENVELOPE });
    expect(bogus.json.error).toMatchObject({ code: -32602 });
  });

  test("tools/call: text, image with structured content, isError, unknown tool, bad input", async () => {
    const echo = await both("tools/call", call("kit__echo", { text: "hi" }));
    expect(echo.json.result).toMatchObject({
      content: [{ type: "text", text: "echo: hi" }],
      resultType: "complete",
      _meta: { "io.modelcontextprotocol/serverInfo": { name: "airlock" } },
    });
    const picture = await both("tools/call", call("kit__picture", {}));
    expect(picture.json.result).toMatchObject({ structuredContent: { width: 1, height: 1 } });
    const failed = await both("tools/call", call("kit__fail", {}));
    expect(failed.json.result).toMatchObject({ isError: true });
    const unknown = await both("tools/call", call("kit__nope", {}));
    expect(unknown.json.result).toMatchObject({ _meta: { "airlock/errorCode": "AIRLOCK_MCP_UNKNOWN_TOOL" } });
    const bad = await both("tools/call", call("kit__echo", { text: 3 }));
    expect(bad.json.result).toMatchObject({ _meta: { "airlock/errorCode": "AIRLOCK_TOOL_INPUT_INVALID" } });
  });

  test("a call that needs people ends its round the same way (input_required, sealed state)", async () => {
    const withUrls = {
      ...ENVELOPE,
      "io.modelcontextprotocol/clientCapabilities": { elicitation: { form: {}, url: {} } },
    };
    const approval = await both("tools/call", { name: "kit__write", arguments: {}, _meta: withUrls });
    expect(approval.json.result).toMatchObject({ resultType: "input_required" });
    // a tool whose required secret is missing is not served: both answer it alike
    const hidden = await both("tools/call", { name: "kit__keyed", arguments: {}, _meta: withUrls });
    expect(hidden.json.result).toMatchObject({ isError: true });
  });

  test("what only a server instance answers goes to the SDK", async () => {
    const cases: Array<[string, Record<string, unknown>, Record<string, string>]> = [
      ["progress token", { ...call("kit__slow", {}), _meta: { ...ENVELOPE, progressToken: 1 } }, {}],
      [
        "log level",
        {
          ...call("kit__echo", { text: "x" }),
          _meta: { ...ENVELOPE, "io.modelcontextprotocol/logLevel": "info" },
        },
        {},
      ],
      ["Mcp-Name disagreeing with the body", call("kit__echo", { text: "x" }), { "mcp-name": "kit__fail" }],
      [
        "no client capabilities",
        {
          name: "kit__echo",
          arguments: { text: "x" },
          _meta: { ...ENVELOPE, "io.modelcontextprotocol/clientCapabilities": undefined },
        },
        {},
      ],
      ["a name that is not a string", { name: 3, arguments: {}, _meta: ENVELOPE }, {}],
    ];
    for (const [what, params, headers] of cases) {
      const before = lane.mcpStats()!;
      const sent = await post(lane, "tools/call", params, headers);
      const after = lane.mcpStats()!;
      expect({
        what,
        lane: after.modernLane - before.modernLane,
        sdk: after.modernSdk - before.modernSdk,
      }).toEqual({
        what,
        lane: 0,
        sdk: 1,
      });
      expect(sent.status, what).toBeLessThan(500);
    }
  });
});

/** A 2025-11-25 session on `server`: its id, from a raw initialize declaring `capabilities`. */
async function session(server: AdminServer, capabilities: Record<string, unknown> = {}): Promise<string> {
  const sent = await raw(
    server,
    {},
    {
      id: 0,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities, clientInfo: { name: "raw", version: "1" } },
    },
  );
  return sent.headers.get("mcp-session-id") ?? "";
}

/** A 2025 POST on a session: the answer, and every SSE event's data when it streamed. */
async function post2025(server: AdminServer, sessionId: string, message: Record<string, unknown>) {
  const { status, type, events } = await raw(
    server,
    { "mcp-protocol-version": "2025-11-25", "mcp-session-id": sessionId },
    message,
  );
  return { status, type, events };
}

describe("the 2025 fast lane answers a session's tools/call as an instance does", () => {
  test("plain, isError, unknown, bad input, and progress and log lines as SSE", async () => {
    const ours = await session(lane);
    const theirs = await session(sdk);
    const calls: Array<Record<string, unknown>> = [
      { id: 1, method: "tools/call", params: { name: "kit__echo", arguments: { text: "hi" } } },
      { id: 2, method: "tools/call", params: { name: "kit__picture", arguments: {} } },
      { id: "three", method: "tools/call", params: { name: "kit__fail", arguments: {} } },
      { id: 4, method: "tools/call", params: { name: "kit__nope", arguments: {} } },
      { id: 5, method: "tools/call", params: { name: "kit__echo", arguments: { text: 5 } } },
      {
        id: 6,
        method: "tools/call",
        params: { name: "kit__slow", arguments: {}, _meta: { progressToken: "p" } },
      },
    ];
    for (const message of calls) {
      const before = lane.mcpStats()!;
      const a = await post2025(lane, ours, message);
      expect(lane.mcpStats()!.legacyLane).toBe(before.legacyLane + 1);
      const b = await post2025(sdk, theirs, message);
      const blank = (x: unknown) =>
        JSON.parse(JSON.stringify(x).replace(/"call_[0-9a-f-]{36}"/g, '"call_*"'));
      expect(blank(a)).toEqual(blank(b));
    }
    const slow = await post2025(lane, ours, calls[5]!);
    expect(slow.type).toMatch(/^text\/event-stream/);
    expect(slow.events.length).toBeGreaterThan(1);
  });

  test("a session whose client answers elicitations, a task and tools/list go to an instance", async () => {
    const eliciting = await session(lane, { elicitation: { form: {} } });
    const plainSession = await session(lane);
    const cases: Array<[string, Record<string, unknown>]> = [
      [eliciting, { id: 1, method: "tools/call", params: { name: "kit__echo", arguments: { text: "x" } } }],
      [plainSession, { id: 2, method: "tools/list", params: {} }],
      [plainSession, { id: 3, method: "tools/call", params: { name: 3 } }],
    ];
    for (const [sessionId, message] of cases) {
      const before = lane.mcpStats()!;
      const sent = await post2025(lane, sessionId, message);
      const after = lane.mcpStats()!;
      expect({ lane: after.legacyLane - before.legacyLane, sdk: after.legacySdk - before.legacySdk }).toEqual(
        {
          lane: 0,
          sdk: 1,
        },
      );
      expect(sent.status).toBeLessThan(500);
    }
  });
});
