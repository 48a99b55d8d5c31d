// `npm start` (= `airlock start`) on an empty data dir, as a child process: it starts a local
// registry, publishes the first-party plugins signed and installs them, creates the `example`
// agent with their tools enabled, and prints URLs and tokens that work. An MCP client then
// calls a tool that needs an operator approval, which the operator grants over the admin API.
// A restart on the same data dir installs nothing again and keeps what the agent wrote.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Daemon, daemon } from "./cli-support.ts";

const STEP = 180_000;
type Content = Array<{ type: string; text?: string }>;
const textOf = (r: unknown): string =>
  (((r as { content?: unknown }).content ?? []) as Content).map((p) => p.text ?? "").join("");

interface Banner {
  admin: string;
  operator: string;
  mcp: string;
  agentToken: string;
}

function parseBanner(out: string): Banner {
  const pick = (re: RegExp) => re.exec(out)?.[1] ?? "";
  return {
    admin: pick(/Admin API:\s+(\S+)/),
    operator: pick(/Operator token:\s+(\S+)/),
    mcp: pick(/MCP \(example\):\s+(\S+)/),
    agentToken: pick(/MCP \(example\):[^\n]*\n\s+agent token:\s+(\S+)/),
  };
}

describe("airlock start bootstraps the first-party plugins", () => {
  let dataDir: string;
  let host: Daemon | undefined;
  let banner: Banner;

  const start = async () => {
    host = await daemon(
      "airlock",
      ["start", "--data-dir", dataDir, "--port", "0", "--sandbox", "workers"],
      /Press Ctrl\+C/,
    );
    banner = parseBanner(host.output());
    return host.output();
  };
  async function withMcp<T>(body: (c: Client) => Promise<T>): Promise<T> {
    const client = new Client({ name: "start-test", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(banner.mcp), {
        requestInit: { headers: { authorization: `Bearer ${banner.agentToken}` } },
      }),
    );
    try {
      return await body(client);
    } finally {
      await client.close();
    }
  }
  const admin = (path: string, init: RequestInit = {}) =>
    fetch(`${banner.admin}${path}`, {
      ...init,
      headers: { authorization: `Bearer ${banner.operator}`, "content-type": "application/json" },
    });

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), "airlock-npm-start-"));
  });
  afterAll(async () => {
    await host?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it("prints the admin API, the MCP URL and a token for the example agent", { timeout: STEP }, async () => {
    const out = await start();
    expect(out).toMatch(/Plugins:.*notes@1\.0\.0 \(installed\)/);
    expect(out).toMatch(/Local registry:\s+http:\/\/127\.0\.0\.1:\d+/);
    expect(banner.mcp).toMatch(/\/mcp\/example$/);
    const tools = (await (await admin("/tools")).json()) as { tools: Array<{ id: string }> };
    expect(tools.tools.map((t) => t.id)).toEqual(
      expect.arrayContaining([
        "notes:writeNote",
        "render:renderChart",
        "upload:uploadArtifact",
        "weather:currentWeather",
      ]),
    );
  });

  it("serves the example agent's tools over MCP, harness tools excepted", { timeout: STEP }, async () => {
    const names = await withMcp(async (c) => (await c.listTools()).tools.map((t) => t.name));
    expect(names).toEqual(
      expect.arrayContaining([
        "notes__writeNote",
        "http-json__getJson",
        "weather__currentWeather",
        "render__renderCsv",
      ]),
    );
    expect(names.some((n) => n.startsWith("room__"))).toBe(false);
  });

  it("runs a write once the operator approves it over the admin API", { timeout: STEP }, async () => {
    const result = await withMcp(async (c) => {
      const call = c.callTool({
        name: "notes__writeNote",
        arguments: { id: null, title: "Bootstrap", content: "The pelican arrived.", mode: null },
      });
      let approvals: Array<{ id: string; toolName: string }> = [];
      while (approvals.length === 0) {
        approvals = ((await (await admin("/approvals")).json()) as { approvals: typeof approvals }).approvals;
        if (approvals.length === 0) await delay(100);
      }
      expect(approvals[0]?.toolName).toBe("notes:writeNote");
      const decided = await admin(`/approvals/${approvals[0]?.id}`, {
        method: "POST",
        body: '{"approve":true}',
      });
      expect(decided.status).toBe(200);
      return call;
    });
    expect(result.isError).toBeFalsy();
    expect(JSON.parse(textOf(result))).toMatchObject({ action: "created" });
  });

  it("restarts without installing again and keeps the agent's notes", { timeout: STEP }, async () => {
    await host?.stop();
    const out = await start();
    expect(out).not.toMatch(/\(installed\)/);
    expect(out).toMatch(/Plugins:.*notes@1\.0\.0/);
    const hits = await withMcp(async (c) =>
      JSON.parse(
        textOf(
          await c.callTool({ name: "notes__searchNotes", arguments: { query: "pelican", limit: null } }),
        ),
      ),
    );
    expect(hits.hits).toHaveLength(1);
  });
});
