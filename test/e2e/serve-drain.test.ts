// SIGTERM drain of a real `airlock serve` process (PostgreSQL store) with slow tool calls in
// flight over MCP HTTP (a 2025-11-25 session): every call is answered, none lost to a reset
// connection. Calls that end within the grace (`--drain-ms`) complete with their result; calls
// still running at its end are ended by the host with AIRLOCK_HOST_CLOSED, answered as tool
// results carrying the code; the process exits 0; the audit has every call's row.
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MANIFEST_VERSION, PLUGIN_GLOBAL, SDK_VERSION } from "@airlock/sdk/manifest";
import { sha512Integrity, writePluginTarball } from "@airlock/sdk/package";
import { afterAll, beforeAll, expect, it } from "vitest";
import { openStore } from "../../host/src/state/store/index.ts";
import { dropSchemas, freshSchemaName } from "../../host/src/state/store/postgres/test-schema.ts";
import { describePg, PG_URL } from "../support/postgres.ts";
import { freePort, openSetupHost, type Replica, replica } from "./scale-out-support.ts";

/** A plugin whose read-only `sleep` tool waits `ms` (a timer, bounded by the call's wall limit). */
function sleeperTarball(): Uint8Array {
  const bundle = `globalThis[${JSON.stringify(PLUGIN_GLOBAL)}] = { namespace: "sleeper", version: "1.0.0", tools: {
  sleep: async (input) => { await new Promise((r) => setTimeout(r, input.ms)); return { content: [{ type: "text", text: "slept " + input.ms }] }; },
} };\n`;
  const bytes = new TextEncoder().encode(bundle);
  const manifest = {
    manifestVersion: MANIFEST_VERSION,
    namespace: "sleeper",
    version: "1.0.0",
    description: "drain test plugin",
    engine: ">=0.1.0",
    sdk: SDK_VERSION,
    bundle: { file: "index.js", integrity: sha512Integrity(bytes), size: bytes.length },
    tools: [
      {
        name: "sleep",
        description: "Waits.",
        category: "utility",
        inputSchema: {
          type: "object",
          properties: { ms: { type: "integer" } },
          required: ["ms"],
          additionalProperties: false,
        },
        annotations: { readOnlyHint: true },
        requiredSecrets: [],
        inputExamples: [],
        harness: null,
      },
    ],
    knowledge: null,
    egress: [],
    limits: {},
  };
  return writePluginTarball({
    packageJson: JSON.stringify({ name: "sleeper", version: "1.0.0", private: true }),
    manifest: JSON.stringify(manifest),
    bundle,
  });
}

interface Answer {
  status: number;
  events: Array<{
    id?: unknown;
    result?: { isError?: boolean; content?: Array<{ text?: string }>; _meta?: Record<string, unknown> };
    error?: unknown;
  }>;
}

// The grace is far longer than the short calls (they end ~25× sooner, even on a loaded machine)
// and far shorter than the long ones (25 s, under the default 30 s wall limit).
const DRAIN_MS = 8000;

describePg("SIGTERM drain of `airlock serve` with calls in flight", () => {
  const schema = freshSchemaName();
  const masterKey = randomBytes(32).toString("base64");
  let root: string;
  let server: Replica;
  let agentToken = "";
  let operatorToken = "";

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), "airlock-drain-"));
    const setup = await openSetupHost(root, schema, masterKey);
    await setup.plugins.installTarball(sleeperTarball(), "/tmp/sleeper.tgz", { allowUnsigned: true });
    await setup.createAgent("ada");
    await setup.setToolsEnabled("ada", { "sleeper:sleep": true });
    agentToken = (await setup.issueToken("agent", "ada", "drain")).token;
    operatorToken = (await setup.issueToken("operator", undefined, "drain")).token;
    await setup.close();
    const port = await freePort();
    server = replica({
      id: "drained",
      port,
      dataDir: join(root, "replica"),
      store: `${PG_URL}?schema=${schema}`,
      allowedHost: `127.0.0.1:${port}`,
      env: { AIRLOCK_MASTER_KEY: masterKey, AIRLOCK_DRAIN_MS: String(DRAIN_MS) },
    });
    await server.start();
  }, 60_000);
  afterAll(async () => {
    await server?.stop("SIGKILL");
    await dropSchemas(PG_URL, [schema]);
    await rm(root, { recursive: true, force: true });
  });

  const mcp = async (
    headers: Record<string, string>,
    message: Record<string, unknown>,
  ): Promise<Answer & { session: string | null }> => {
    const res = await fetch(`${server.url}/mcp/ada`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${agentToken}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        ...headers,
      },
      body: JSON.stringify({ jsonrpc: "2.0", ...message }),
    });
    const text = await res.text();
    const events = (res.headers.get("content-type") ?? "").startsWith("text/event-stream")
      ? text
          .split("\n")
          .filter((line) => line.startsWith("data: "))
          .map((line) => JSON.parse(line.slice(6)) as Answer["events"][number])
      : text === ""
        ? []
        : [JSON.parse(text) as Answer["events"][number]];
    return { status: res.status, events, session: res.headers.get("mcp-session-id") };
  };

  it("answers every call in flight (result, or AIRLOCK_HOST_CLOSED after the grace), and exits 0", async () => {
    const init = await mcp(
      {},
      {
        id: 0,
        method: "initialize",
        params: {
          protocolVersion: "2025-11-25",
          capabilities: {},
          clientInfo: { name: "drain", version: "1" },
        },
      },
    );
    const session = init.session ?? "";
    expect(session).not.toBe("");
    // Watch the calls start on the host's event stream, so SIGTERM comes with all of them in flight.
    const stream = new AbortController();
    const events = await fetch(`${server.url}/api/events?agent=ada`, {
      headers: { authorization: `Bearer ${operatorToken}`, accept: "text/event-stream" },
      signal: stream.signal,
    });
    let started = 0;
    const reading = (async () => {
      const decoder = new TextDecoder();
      try {
        for await (const chunk of events.body as AsyncIterable<Uint8Array>) {
          started += decoder.decode(chunk).split("event: tool.started").length - 1;
        }
      } catch {
        // the stream ends when the server drains (or when we abort it)
      }
    })();
    const plan = [300, 300, 300, 300, 25_000, 25_000]; // the last two outlast the grace
    const calls = plan.map((ms, i) =>
      mcp(
        { "mcp-protocol-version": "2025-11-25", "mcp-session-id": session },
        { id: i + 1, method: "tools/call", params: { name: "sleeper__sleep", arguments: { ms } } },
      ).then(
        (answer) => ({ ok: true as const, answer }),
        (error: unknown) => ({ ok: false as const, error: String(error) }),
      ),
    );
    const deadline = Date.now() + 30_000;
    while (started < plan.length) {
      if (Date.now() > deadline)
        throw new Error(`only ${started} of ${plan.length} calls started\n${server.log()}`);
      await new Promise((r) => setTimeout(r, 20));
    }
    await server.stop("SIGTERM");
    stream.abort();
    await reading;

    const outcomes = await Promise.all(calls);
    // none lost: every request got an HTTP answer with its JSON-RPC response
    expect(outcomes.filter((o) => !o.ok)).toEqual([]);
    const results = outcomes.map((o, i) => {
      const answer = (o as { answer: Answer }).answer;
      const last = answer.events.at(-1);
      return {
        ms: plan[i],
        status: answer.status,
        id: last?.id,
        code: last?.result?._meta?.["airlock/errorCode"] ?? null,
        text: last?.result?.content?.[0]?.text ?? null,
      };
    });
    for (const [i, r] of results.entries()) {
      expect(r.status).toBe(200);
      expect(r.id).toBe(i + 1);
      if ((r.ms ?? 0) < DRAIN_MS) expect(r).toMatchObject({ code: null, text: `slept ${r.ms}` });
      else expect(r.code).toBe("AIRLOCK_HOST_CLOSED");
    }
    expect(server.exit()).toEqual({ code: 0, signal: null });
    // every call has its audit row
    const store = await openStore({ kind: "postgres", url: PG_URL, schema });
    try {
      const rows = (await store.queryAudit({ agent: "ada", kind: "tool", limit: 100 })).filter(
        (r) => r.plugin === "sleeper" && r.tool === "sleep",
      );
      expect(rows.map((r) => r.error).sort()).toEqual(
        ["AIRLOCK_HOST_CLOSED", "AIRLOCK_HOST_CLOSED", null, null, null, null].sort(),
      );
    } finally {
      await store.close();
    }
  }, 120_000);
});
