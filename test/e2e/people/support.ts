// Shared set-up of the people-in-the-loop suites: a real host (SQLite in a temp dir, in-process
// sandbox) with the "loop" fixture plugin, served on a real socket, and the three SDK clients
// (v1 2025-era, v2 2025-11-25, v2 pinned to 2026-07-28), each able to answer elicitations with
// a handler the test swaps per scenario, or declaring no elicitation at all.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  Client as V2Client,
  StreamableHTTPClientTransport as V2Transport,
} from "@modelcontextprotocol/client";
import { Client as V1Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as V1Transport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import type { AirlockHost } from "../../../host/src/contracts/host.ts";
import { type FixturePlugin, installFixture } from "../../../host/src/engine/pipeline/test-fixtures.ts";
import { createHost } from "../../../host/src/host.ts";
import { openStore } from "../../../host/src/state/store/index.ts";
import { testStore } from "../../../host/src/state/store/test-store.ts";
import { type AdminServer, startAdminServer } from "../../../host/src/surfaces/http/server.ts";

export const LOOP: FixturePlugin = {
  namespace: "loop",
  version: "1.0.0",
  tools: [
    {
      name: "write",
      description: "A mutating tool (needs an approval).",
      annotations: { title: "Write a note", readOnlyHint: false, destructiveHint: true },
      inputSchema: { type: "object", properties: { note: { type: "string" } }, additionalProperties: false },
      code: 'async (input) => "written: " + (input.note ?? "")',
    },
    {
      name: "ask",
      description: "Asks the person for a name and a PIN (ctx.elicit).",
      annotations: { readOnlyHint: true },
      code: `async (input, ctx) => {
        const r = await ctx.elicit({ message: "Who are you?", schema: { type: "object", properties: {
          name: { type: "string", title: "Name" },
          pin: { type: "string", title: "PIN", sensitive: true } }, required: ["name"] } });
        return r.action === "accept" ? "hello " + r.content.name + (r.content.pin ? " (pin given)" : "") : "elicit: " + r.action;
      }`,
    },
    {
      name: "keyed",
      description: "Needs an API key; answers its length only.",
      annotations: { readOnlyHint: true },
      requiredSecrets: [{ key: "api_key", type: "text", optional: false, sensitive: true }],
      code: 'async (input, ctx) => "key of " + (await ctx.secrets.get("api_key")).length + " characters"',
    },
  ],
};

export interface LoopFixture {
  host: AirlockHost;
  /** The host's data dir (a test that reads rows opens its store itself: testStore(dataDir)). */
  dataDir: string;
  server: AdminServer;
  operatorToken: string;
  agentToken: string;
  /** What the host reported: its internal errors and the admin server's error log, one line each. */
  logs: string[];
  close(): Promise<void>;
}

export async function startLoopHost(
  options: { approvalWaitMs?: number; publicUrl?: string } = {},
): Promise<LoopFixture> {
  const dataDir = await mkdtemp(join(tmpdir(), "airlock-loop-"));
  const store = await openStore(testStore(dataDir));
  try {
    await installFixture(store, join(dataDir, "plugins"), LOOP);
  } finally {
    await store.close();
  }
  const logs: string[] = [];
  const report = (what: string, error: unknown) =>
    logs.push(
      `${what}: ${error instanceof Error ? `${error.message}\n${error.stack ?? ""}` : String(error)}`,
    );
  const host = await createHost({
    dataDir,
    store: testStore(dataDir),
    sandbox: { mode: "in-process" },
    onInternalError: report,
    ...(options.publicUrl === undefined ? {} : { publicUrl: options.publicUrl }),
  });
  const operator = await host.issueToken("operator", undefined, "test");
  await host.createAgent("alpha");
  const agent = await host.issueToken("agent", "alpha", "test");
  await host.setToolsEnabled("alpha", { "loop:write": true, "loop:ask": true, "loop:keyed": true });
  const server = await startAdminServer(host, {
    port: 0,
    log: (error) => report("admin server", error),
    ...(options.approvalWaitMs === undefined ? {} : { mcp: { approvalWaitMs: options.approvalWaitMs } }),
  });
  return {
    host,
    dataDir,
    server,
    operatorToken: operator.token,
    agentToken: agent.token,
    logs,
    async close() {
      await server.close();
      await host.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

export interface ToolResult {
  content: Array<{ type: string; text?: string }>;
  isError?: boolean;
  _meta?: Record<string, unknown>;
}

export interface ElicitParams {
  mode?: "form" | "url";
  message: string;
  requestedSchema?: { properties: Record<string, unknown> };
  url?: string;
  elicitationId?: string;
}
export type ElicitAnswer =
  | { action: "accept"; content?: Record<string, unknown> }
  | { action: "decline" | "cancel" };
export type Answerer = (params: ElicitParams) => Promise<ElicitAnswer> | ElicitAnswer;

export interface Connected {
  call(
    name: string,
    args: Record<string, unknown>,
    onprogress?: (message: string) => void,
  ): Promise<ToolResult>;
  /** Every elicitation the client was asked, in order. */
  asked: ElicitParams[];
  /** Every message the client sent or received over HTTP (request and response bodies). */
  wire: string[];
  answer: Answerer;
  close(): Promise<void>;
}

/** Errors thrown by answer handlers (a test checks it is empty, or rethrows the first). */
export const failures: unknown[] = [];

export type Kind = "sdk v1, 2025-era" | "sdk v2, 2025-11-25" | "sdk v2, 2026-07-28";
export const KINDS: Kind[] = ["sdk v1, 2025-era", "sdk v2, 2025-11-25", "sdk v2, 2026-07-28"];

/** A fetch that records every body that crosses it (to assert nothing secret ever does). */
function recordingFetch(wire: string[]): typeof fetch {
  return async (input, init) => {
    if (typeof init?.body === "string") wire.push(init.body);
    const response = await fetch(input, init);
    const copy = response.clone();
    if (copy.body !== null) {
      void copy.text().then(
        (text) => wire.push(text),
        () => undefined,
      );
    }
    return response;
  };
}

export async function connect(
  kind: Kind,
  fx: LoopFixture,
  options: { elicitation?: false | { url: boolean } } = {},
): Promise<Connected> {
  const url = new URL(fx.server.mcpUrl("alpha"));
  const requestInit = { headers: { authorization: `Bearer ${fx.agentToken}` } };
  const wire: string[] = [];
  const asked: ElicitParams[] = [];
  const elicitation =
    options.elicitation === false
      ? undefined
      : { form: {}, ...(options.elicitation?.url === false ? {} : { url: {} }) };
  const capabilities = elicitation === undefined ? {} : { elicitation };
  const connected: Connected = {
    asked,
    wire,
    answer: () => ({ action: "cancel" }),
    call: async () => {
      throw new Error("not connected");
    },
    close: async () => undefined,
  };
  const handle = async (params: ElicitParams) => {
    asked.push(params);
    try {
      return await connected.answer(params);
    } catch (error) {
      // A failed expectation inside an answer must fail the test, not leave the call waiting.
      failures.push(error);
      throw error;
    }
  };
  if (kind === "sdk v1, 2025-era") {
    const client = new V1Client({ name: "loop", version: "1.0.0" }, { capabilities });
    if (elicitation !== undefined) {
      client.setRequestHandler(
        ElicitRequestSchema,
        async (request) => (await handle(request.params as ElicitParams)) as never,
      );
    }
    await client.connect(new V1Transport(url, { requestInit, fetch: recordingFetch(wire) }));
    connected.call = async (name, args, onprogress) =>
      (await client.callTool({ name, arguments: args }, undefined, {
        timeout: 60_000,
        ...(onprogress === undefined ? {} : { onprogress: (p) => onprogress(p.message ?? "") }),
      })) as ToolResult;
    connected.close = () => client.close();
    return connected;
  }
  const client = new V2Client(
    { name: "loop", version: "1.0.0" },
    {
      capabilities,
      ...(kind === "sdk v2, 2026-07-28" ? { versionNegotiation: { mode: { pin: "2026-07-28" } } } : {}),
    },
  );
  if (elicitation !== undefined) {
    client.setRequestHandler(
      "elicitation/create",
      async (request) => (await handle(request.params as ElicitParams)) as never,
    );
  }
  await client.connect(new V2Transport(url, { requestInit, fetch: recordingFetch(wire) }));
  connected.call = async (name, args, onprogress) =>
    (await client.callTool(
      { name, arguments: args },
      {
        timeout: 60_000,
        ...(onprogress === undefined ? {} : { onprogress: (p) => onprogress(p.message ?? "") }),
      },
    )) as ToolResult;
  connected.close = () => client.close();
  return connected;
}

export const text = (r: ToolResult) => r.content.map((p) => p.text ?? "").join("");
