// MCP over streamable HTTP on a real socket, one URL for both protocol eras, driven by the
// official SDK clients: v1 (`@modelcontextprotocol/sdk`, 2025 only), v2 in its default 2025
// handshake, and v2 pinned to 2026-07-28 (stateless, no initialize). Each client runs the same
// checks: list, call, isError with its code, progress, list change, cancellation, bad tokens.

import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import {
  Client as V2Client,
  StreamableHTTPClientTransport as V2Transport,
} from "@modelcontextprotocol/client";
import { Client as V1Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as V1Transport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { type AdminServer, startAdminServer } from "../../host/src/surfaces/http/server.ts";
import { createSurfaceFixture, type SurfaceFixture } from "../../host/src/surfaces/http/test-support.ts";
import { repeatUntilTold } from "../support/list-changes.ts";

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

interface ToolResult {
  content: unknown[];
  isError?: boolean;
  structuredContent?: unknown;
  _meta?: Record<string, unknown>;
}

/** What each test needs of a client, whatever its SDK line and era. */
interface Connected {
  era: "legacy" | "modern";
  names(): Promise<string[]>;
  call(
    name: string,
    args: Record<string, unknown>,
    options?: { signal?: AbortSignal; onprogress?: (p: number, message?: string) => void },
  ): Promise<ToolResult>;
  /** Resolves on the next tools list_changed notification. */
  nextListChange(): Promise<void>;
  close(): Promise<void>;
}

type Kind = "sdk v1, 2025-era" | "sdk v2, 2025-11-25" | "sdk v2, 2026-07-28";
const KINDS: Kind[] = ["sdk v1, 2025-era", "sdk v2, 2025-11-25", "sdk v2, 2026-07-28"];

async function connect(kind: Kind, agent: string, token: string): Promise<Connected> {
  const url = new URL(server.mcpUrl(agent));
  const headers = { authorization: `Bearer ${token}` };
  let changed: (() => void) | undefined;
  const nextListChange = () =>
    new Promise<void>((resolve) => {
      changed = resolve;
    });
  const onChanged = () => changed?.();
  if (kind === "sdk v1, 2025-era") {
    const client = new V1Client({ name: "e2e", version: "1.0.0" });
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => onChanged());
    await client.connect(new V1Transport(url, { requestInit: { headers } }));
    return {
      era: "legacy",
      names: async () => (await client.listTools()).tools.map((t) => t.name),
      call: async (name, args, options = {}) =>
        (await client.callTool({ name, arguments: args }, undefined, {
          ...(options.signal === undefined ? {} : { signal: options.signal }),
          ...(options.onprogress === undefined
            ? {}
            : { onprogress: (p) => options.onprogress?.(p.progress, p.message) }),
        })) as ToolResult,
      nextListChange,
      close: () => client.close(),
    };
  }
  const modern = kind === "sdk v2, 2026-07-28";
  const client = new V2Client(
    { name: "e2e", version: "1.0.0" },
    {
      ...(modern ? { versionNegotiation: { mode: { pin: "2026-07-28" } } } : {}),
      // every notification told at once (the SDK waits 300 ms for more by default)
      listChanged: { tools: { autoRefresh: false, debounceMs: 0, onChanged } },
    },
  );
  await client.connect(new V2Transport(url, { requestInit: { headers } }));
  return {
    era: client.getProtocolEra() ?? "legacy",
    names: async () => (await client.listTools()).tools.map((t) => t.name),
    call: async (name, args, options = {}) =>
      (await client.callTool(
        { name, arguments: args },
        {
          ...(options.signal === undefined ? {} : { signal: options.signal }),
          ...(options.onprogress === undefined
            ? {}
            : { onprogress: (p) => options.onprogress?.(p.progress, p.message) }),
        },
      )) as ToolResult,
    nextListChange,
    close: () => client.close(),
  };
}

describe.each(KINDS)("%s", (kind) => {
  test("speaks its era on the shared URL, lists and calls the agent's tools", async () => {
    const c = await connect(kind, "alpha", f.agentToken);
    expect(c.era).toBe(kind === "sdk v2, 2026-07-28" ? "modern" : "legacy");
    expect(await c.names()).toEqual(["kit__echo", "kit__fail", "kit__picture", "kit__slow", "kit__write"]);
    const result = await c.call("kit__echo", { text: "over mcp" });
    expect(result.content).toEqual([{ type: "text", text: "echo: over mcp" }]);
    expect(result.isError).toBeUndefined();
    expect(result._meta?.["airlock/callId"]).toMatch(/^call_/);
    const picture = await c.call("kit__picture", {});
    expect(picture.structuredContent).toEqual({ width: 1, height: 1 });
    await c.close();
  });

  test("answers a failing tool, bad input and an unknown tool as isError results with their codes", async () => {
    const c = await connect(kind, "alpha", f.operatorToken);
    const failed = await c.call("kit__fail", {});
    expect(failed).toMatchObject({
      isError: true,
      content: [{ type: "text", text: "the fail tool always fails" }],
    });
    expect(failed._meta?.["airlock/errorCode"]).toBe("AIRLOCK_TOOL_REPORTED_ERROR");
    const invalid = await c.call("kit__echo", { text: 42 });
    expect(invalid).toMatchObject({
      isError: true,
      _meta: { "airlock/errorCode": "AIRLOCK_TOOL_INPUT_INVALID" },
    });
    for (const name of ["kit:echo", "echo", "kit__keyed", "nothing__here"]) {
      const unknown = await c.call(name, {});
      expect(unknown).toMatchObject({
        isError: true,
        _meta: { "airlock/errorCode": "AIRLOCK_MCP_UNKNOWN_TOOL" },
      });
      expect(JSON.stringify(unknown.content)).toContain("kit__echo");
    }
    await c.close();
  });

  test("delivers a call's progress before its result", async () => {
    const c = await connect(kind, "alpha", f.agentToken);
    const progress: number[] = [];
    const result = await c.call("kit__slow", {}, { onprogress: (p) => progress.push(p) });
    expect(progress).toEqual([1, 2]);
    expect(result.content).toEqual([{ type: "text", text: "slow done" }]);
    await c.close();
  });

  test("tells a connected client when an operator changes the agent's tools", async () => {
    const c = await connect(kind, "alpha", f.agentToken);
    await repeatUntilTold(
      () => f.host.setToolsEnabled("alpha", { "kit:picture": false }),
      c.nextListChange(),
    );
    expect(await c.names()).not.toContain("kit__picture");
    await repeatUntilTold(() => f.host.setToolsEnabled("alpha", { "kit:picture": true }), c.nextListChange());
    expect(await c.names()).toContain("kit__picture");
    await c.close();
  });

  test("cancels a call the client abandons: the approval it waited for is withdrawn", async () => {
    const c = await connect(kind, "alpha", f.agentToken);
    const failed = new Promise<{ error: { code: string } }>((resolve) => {
      const off = f.host.on("tool.failed", (event) => {
        if (event.toolName !== "kit:write") return;
        off();
        resolve(event);
      });
    });
    const pending = new Promise<void>((resolve) => {
      const off = f.host.on("permission.required", () => {
        off();
        resolve();
      });
    });
    const abort = new AbortController();
    const call = c.call("kit__write", {}, { signal: abort.signal }).catch((error: unknown) => error);
    await pending;
    expect(await f.host.listApprovals("alpha")).toHaveLength(1);
    abort.abort("the person gave up");
    expect(await call).toBeInstanceOf(Error);
    expect((await failed).error.code).toBe("AIRLOCK_TOOL_CANCELLED");
    expect(await f.host.listApprovals("alpha")).toEqual([]);
    await c.close();
  });

  test("refuses an unknown token and another agent's token", async () => {
    await expect(
      connect(kind, "alpha", "alk_ag_wrongwrongwrongwrongwrongwrongwrongwrongwro"),
    ).rejects.toThrow();
    await expect(connect(kind, "alpha", f.otherAgentToken)).rejects.toThrow();
    const c = await connect(kind, "beta", f.otherAgentToken);
    expect(await c.names()).toEqual([]);
    await c.close();
  });
});

const post = (body: unknown, headers: Record<string, string> = {}) =>
  fetch(server.mcpUrl("alpha"), {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...headers,
    },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
const MODERN = {
  "mcp-protocol-version": "2026-07-28",
  "mcp-method": "tools/list",
};
const envelope = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" },
  "io.modelcontextprotocol/clientCapabilities": {},
};

/** A raw 2025 initialize with `token`; its answer (the session id is a header). */
const initialize = (token: string) =>
  post(
    {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
    },
    { authorization: `Bearer ${token}` },
  );

describe("the HTTP exchange", () => {
  test("401 names the protected-resource metadata, which names this host as the authorization server", async () => {
    const res = await post({ jsonrpc: "2.0", id: 1, method: "tools/list" });
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ error: { code: "AIRLOCK_API_UNAUTHORIZED" } });
    const challenge = res.headers.get("www-authenticate") ?? "";
    const metadataUrl = /resource_metadata="([^"]+)"/.exec(challenge)?.[1];
    expect(metadataUrl).toBe(`${server.url}/.well-known/oauth-protected-resource/mcp/alpha`);
    const metadata = (await (await fetch(metadataUrl as string)).json()) as Record<string, unknown>;
    expect(metadata).toMatchObject({ resource: server.mcpUrl("alpha"), authorization_servers: [server.url] });
    const forbidden = await post(
      { jsonrpc: "2.0", id: 1, method: "tools/list" },
      {
        authorization: `Bearer ${f.otherAgentToken}`,
      },
    );
    // Another agent's token: the 404 of an unknown agent, as for a slug that does not exist.
    expect(forbidden.status).toBe(404);
    expect(await forbidden.json()).toMatchObject({ error: { code: "AIRLOCK_API_UNKNOWN_AGENT" } });
  });

  test("a typo in the slug says unknown agent whatever token is sent, and only to a valid token", async () => {
    const to = (slug: string, token?: string) =>
      fetch(server.mcpUrl(slug), {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
      });
    // The messages docs/mcp.md quotes for each kind of token, with its slugs put in.
    const doc = readFileSync(resolve(import.meta.dirname, "../../docs/mcp.md"), "utf8");
    const quoted = (kind: string) =>
      (
        new RegExp(`- ${kind}[\\s\\S]*?\`AIRLOCK_API_UNKNOWN_AGENT\`, message\\s+\`([^\`]+)\``).exec(
          doc,
        )?.[1] ?? ""
      ).replace('"exampel"', '"alpah"');
    const documented = [
      { token: f.agentToken, message: quoted("an agent token").replace('"example"', '"alpha"') },
      { token: f.otherAgentToken, message: quoted("an agent token").replace('"example"', '"beta"') },
      { token: f.operatorToken, message: quoted("an operator token") },
    ];
    expect(documented.map((d) => d.message)).not.toContain("");
    for (const { token, message } of documented) {
      const typo = await to("alpah", token);
      expect(typo.status).toBe(404);
      const body = (await typo.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe("AIRLOCK_API_UNKNOWN_AGENT");
      expect(body.error.message).toBe(message);
    }
    // Without a valid token nothing is said about the slug: the same 401 for both.
    for (const slug of ["alpha", "alpah"]) {
      expect((await to(slug)).status).toBe(401);
      expect((await to(slug, "alk_ag_not-a-token")).status).toBe(401);
    }
  });

  test("a wrong static token is an invalid token, not an invitation to OAuth", async () => {
    const res = await post(
      { jsonrpc: "2.0", id: 1, method: "tools/list" },
      { authorization: "Bearer alk_ag_wrong" },
    );
    expect(res.status).toBe(401);
    const body = (await res.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe("AIRLOCK_API_UNAUTHORIZED");
    expect(body.error.message).toMatch(/^invalid token: /);
    const challenge = res.headers.get("www-authenticate") ?? "";
    expect(challenge).toContain('error="invalid_token"');
    expect(challenge).not.toContain("resource_metadata");
  });

  test("answers a 2026-07-28 request with plain JSON, no session, from the per-request envelope", async () => {
    const res = await post(
      { jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: envelope } },
      { authorization: `Bearer ${f.agentToken}`, ...MODERN },
    );
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("application/json");
    expect(res.headers.get("mcp-session-id")).toBeNull();
    const body = (await res.json()) as { result: { tools: Array<{ name: string }>; cacheScope?: string } };
    expect(body.result.tools.map((t) => t.name)).toContain("kit__echo");
    expect(body.result.cacheScope).toBe("private");
  });

  test("a 2025 request without its session gets AIRLOCK_MCP_SESSION_REQUIRED; a forged session 404", async () => {
    const auth = { authorization: `Bearer ${f.agentToken}` };
    const missing = await post({ jsonrpc: "2.0", id: 1, method: "tools/list" }, auth);
    expect(missing.status).toBe(400);
    expect(await missing.json()).toMatchObject({ error: { data: { code: "AIRLOCK_MCP_SESSION_REQUIRED" } } });
    for (const forged of ["made-up", "av1.0000000000000000.AAAA.AAAA", "x".repeat(2000)]) {
      const res = await post(
        { jsonrpc: "2.0", id: 2, method: "tools/list" },
        { ...auth, "mcp-session-id": forged },
      );
      expect(res.status).toBe(404);
      expect(await res.json()).toMatchObject({ error: { data: { code: "AIRLOCK_MCP_SESSION_NOT_FOUND" } } });
    }
  });

  test("a 2025 session opens only for the agent and token that initialized it", async () => {
    const init = await initialize(f.agentToken);
    expect(init.status).toBe(200);
    expect(init.headers.get("content-type")).toContain("application/json");
    const session = init.headers.get("mcp-session-id") as string;
    expect(session).toMatch(/^[\x21-\x7e]+$/);
    const list = (token: string) =>
      post(
        { jsonrpc: "2.0", id: 2, method: "tools/list" },
        { authorization: `Bearer ${token}`, "mcp-session-id": session, "mcp-protocol-version": "2025-11-25" },
      );
    expect((await list(f.agentToken)).status).toBe(200);
    const other = await list(f.operatorToken);
    expect(other.status).toBe(404);
    expect(await other.json()).toMatchObject({ error: { data: { code: "AIRLOCK_MCP_SESSION_NOT_FOUND" } } });
    // a character in the middle: every one of its bits is the sealed bytes' (the last one's may not be)
    const middle = Math.floor(session.length / 2);
    const tampered = `${session.slice(0, middle)}${session[middle] === "A" ? "B" : "A"}${session.slice(middle + 1)}`;
    const res = await post(
      { jsonrpc: "2.0", id: 3, method: "tools/list" },
      { authorization: `Bearer ${f.agentToken}`, "mcp-session-id": tampered },
    );
    expect(res.status).toBe(404);
  });

  test("caps a token's notification streams with a code, leaving other tokens theirs", async () => {
    const init = async (token: string) => {
      const res = await initialize(token);
      await res.text();
      return res.headers.get("mcp-session-id") as string;
    };
    const open = (token: string, session: string, signal: AbortSignal) =>
      fetch(server.mcpUrl("alpha"), {
        headers: { authorization: `Bearer ${token}`, "mcp-session-id": session, accept: "text/event-stream" },
        signal,
      });
    const abort = new AbortController();
    const agentSession = await init(f.agentToken);
    const streams = [];
    for (let i = 0; i < 8; i++) streams.push(await open(f.agentToken, agentSession, abort.signal));
    expect(streams.map((s) => s.status)).toEqual(Array(8).fill(200));
    const over = await open(f.agentToken, agentSession, abort.signal);
    expect(over.status).toBe(429);
    expect(await over.json()).toMatchObject({ error: { data: { code: "AIRLOCK_MCP_STREAM_LIMIT" } } });
    const operatorSession = await init(f.operatorToken);
    const operator = await open(f.operatorToken, operatorSession, abort.signal);
    expect(operator.status).toBe(200);
    abort.abort();
  });

  test("refuses a body that does not parse (-32700) or is not one JSON-RPC message (-32600) with AIRLOCK_MCP_BAD_REQUEST, in both eras", async () => {
    const auth = { authorization: `Bearer ${f.agentToken}` };
    const eras = {
      "2025-11-25": { "mcp-protocol-version": "2025-11-25" },
      "2026-07-28": MODERN,
    };
    const bodies: Array<[string, number]> = [
      ['{"jsonrpc": "2.0", "id": ', -32700],
      [JSON.stringify([{ jsonrpc: "2.0", id: 1, method: "tools/list" }]), -32600], // a batch
      ["42", -32600],
      ["null", -32600],
      [JSON.stringify({ jsonrpc: "2.0", id: 1 }), -32600], // no method, no result
      [JSON.stringify({ jsonrpc: "1.0", id: 1, method: "tools/list" }), -32600],
      [JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: 5 }), -32600],
    ];
    for (const [era, headers] of Object.entries(eras)) {
      for (const [body, rpcCode] of bodies) {
        const answer = await post(body, { ...auth, ...headers });
        expect({ era, body, status: answer.status }).toEqual({ era, body, status: 400 });
        expect({ era, body, error: ((await answer.json()) as { error: unknown }).error }).toMatchObject({
          era,
          body,
          error: { code: rpcCode, data: { code: "AIRLOCK_MCP_BAD_REQUEST" } },
        });
      }
    }
    const c = await connect("sdk v2, 2026-07-28", "alpha", f.agentToken);
    expect((await c.call("kit__echo", { text: "still here" })).content).toEqual([
      { type: "text", text: "echo: still here" },
    ]);
    await c.close();
  });

  test("answers malformed and oversized bodies with JSON-RPC errors, no stack, and stays healthy", async () => {
    const auth = { authorization: `Bearer ${f.agentToken}` };
    const malformed = await post('{"jsonrpc": "2.0", "id": ', auth);
    expect(malformed.status).toBe(400);
    const text = await malformed.text();
    expect(text).toContain('"code":-32700');
    expect(text).not.toMatch(/\n\s+at |\.ts:\d+/);
    const huge = await post(
      {
        jsonrpc: "2.0",
        id: 3,
        method: "tools/call",
        params: { name: "kit__echo", arguments: { text: "x".repeat(5 * 1024 * 1024) } },
      },
      auth,
    );
    expect(huge.status).toBe(413);
    expect(await huge.json()).toMatchObject({ error: { data: { code: "AIRLOCK_MCP_BAD_REQUEST" } } });
    const notJson = await fetch(server.mcpUrl("alpha"), {
      method: "POST",
      headers: { ...auth, "content-type": "text/plain" },
      body: "hello",
    });
    expect(notJson.status).toBe(415);
    const c = await connect("sdk v2, 2026-07-28", "alpha", f.agentToken);
    expect((await c.call("kit__echo", { text: "still here" })).content).toEqual([
      { type: "text", text: "echo: still here" },
    ]);
    await c.close();
  });

  test("a mutating call waits for an operator's approval given through the HTTP API", async () => {
    const c = await connect("sdk v2, 2026-07-28", "alpha", f.agentToken);
    const approval = new Promise<{ approvalId: string }>((resolve) => {
      const off = f.host.on("permission.required", (event) => {
        off();
        resolve(event);
      });
    });
    const notices: string[] = [];
    const pending = c.call("kit__write", {}, { onprogress: (_p, message) => notices.push(message ?? "") });
    const { approvalId } = await approval;
    const decided = await fetch(`${server.url}/api/approvals/${approvalId}`, {
      method: "POST",
      headers: { authorization: `Bearer ${f.operatorToken}`, "content-type": "application/json" },
      body: JSON.stringify({ approve: true }),
    });
    expect(decided.status).toBe(200);
    expect((await pending).content).toEqual([{ type: "text", text: "written" }]);
    expect(notices).toEqual([
      `waiting for an operator's approval of kit__write (approval ${approvalId}): decide it in the host's console (/admin), on its approval page ${server.url}/approve/${approvalId} or with POST /api/approvals/${approvalId}`,
    ]);
    await c.close();
  });
});
