// `npm start` (= `airlock start`) on an empty data dir, as a child process: it starts a local
// registry, publishes the first-party plugins signed and installs them, creates the `example`
// agent with their tools enabled, and prints URLs and tokens that work. An MCP client then
// calls a tool that needs an operator approval, which the operator grants over the admin API.
// A restart on the same data dir installs nothing again and keeps what the agent wrote, and its
// banner is read from the host as it is then (levels changed since, the user's own plugins).
// Every client config the banner prints is pasted as printed into a real client.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { samplePluginTarball, sha512Integrity } from "@airlock/sdk/package";
import { generateKeyPair, signIntegrity } from "@airlock/sdk/signing";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Daemon, daemon, ok } from "./cli-support.ts";

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

/** The client configs under "Connect an MCP client", by label. */
function clientConfigs(out: string): Map<string, string> {
  const block = out.split(/\nConnect an MCP client to \S+ \(paste as printed; docs\/mcp\.md\):\n/)[1] ?? "";
  const configs = new Map<string, string>();
  for (const [, label, text] of block.matchAll(/^ {2}(\S[^\n]*):\n {4}(\S[^\n]*)$/gm))
    configs.set(label as string, text as string);
  return configs;
}

/** The banner's label: value lines (indented, before the first blank line). */
function bannerLines(out: string): string[] {
  return (out.split("\n\n")[0] ?? "").split("\n").slice(1);
}

async function listToolsOver(transport: StdioClientTransport | StreamableHTTPClientTransport) {
  const client = new Client({ name: "pasted-config", version: "1.0.0" });
  await client.connect(transport);
  try {
    return (await client.listTools()).tools.map((t) => t.name);
  } finally {
    await client.close();
  }
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
    // No empty agent: the first MCP URL printed is the example agent's, with its tools.
    expect(out).not.toMatch(/MCP \(default\)/);
    expect(out.match(/MCP \((\S+)\)/)?.[1]).toBe("example");
    expect(out).toMatch(/MCP \(example\):\s+\S+ {2}\(\d+ tools; knowledge: write\)/);
    expect(out).toMatch(/Console:\s+http:\/\/127\.0\.0\.1:\d+\/admin/);
    // Aligned: every value starts in one column.
    const columns = bannerLines(out).map((line) => /^\s+[^:]+:\s+/.exec(line)?.[0].length);
    expect(new Set(columns).size, bannerLines(out).join("\n")).toBe(1);
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

  it("labels the operator and the agent token apart in the token list", { timeout: STEP }, async () => {
    const tokens = (await (await admin("/tokens")).json()) as { tokens: Array<{ label: string }> };
    const labels = tokens.tokens.map((t) => t.label);
    expect(labels).toEqual(expect.arrayContaining(["airlock CLI: operator", "airlock CLI: agent example"]));
  });

  it(
    "prints client configs that work as pasted (HTTP with the header, and stdio)",
    { timeout: STEP },
    async () => {
      const configs = clientConfigs(host?.output() ?? "");
      expect([...configs.keys()]).toEqual([
        "Cursor (~/.cursor/mcp.json) and other `mcpServers` clients",
        "VS Code (.vscode/mcp.json)",
        "Claude Desktop (claude_desktop_config.json; stdio, on this machine)",
        "MCP Inspector (CLI)",
      ]);
      type Entry = {
        url?: string;
        type?: string;
        headers?: Record<string, string>;
        command?: string;
        args?: string[];
      };
      const entry = (label: string, key: "mcpServers" | "servers"): Entry =>
        (JSON.parse(configs.get(label) as string) as Record<string, Record<string, Entry>>)[key]?.[
          "airlock-example"
        ] as Entry;
      const http = (e: Entry) =>
        new StreamableHTTPClientTransport(new URL(e.url as string), {
          requestInit: { headers: e.headers ?? {} },
        });
      const cursor = entry("Cursor (~/.cursor/mcp.json) and other `mcpServers` clients", "mcpServers");
      expect(await listToolsOver(http(cursor))).toContain("notes__searchNotes");
      const vscode = entry("VS Code (.vscode/mcp.json)", "servers");
      expect(vscode.type).toBe("http");
      expect(await listToolsOver(http(vscode))).toContain("notes__searchNotes");
      // Claude Desktop starts its servers with a bare environment, in a folder of its own.
      const desktop = entry(
        "Claude Desktop (claude_desktop_config.json; stdio, on this machine)",
        "mcpServers",
      );
      const stdio = new StdioClientTransport({
        command: desktop.command as string,
        args: desktop.args ?? [],
        cwd: tmpdir(),
        env: { PATH: "/usr/bin:/bin" },
        stderr: "ignore",
      });
      expect(await listToolsOver(stdio)).toContain("notes__searchNotes");
      expect(configs.get("MCP Inspector (CLI)")).toBe(
        `npx @modelcontextprotocol/inspector --cli ${banner.mcp} --transport http --header 'Authorization: Bearer ${banner.agentToken}' --method tools/list`,
      );
    },
  );

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
    // While it runs: the operator raises the level, adds an empty agent and a plugin of their own.
    const key = generateKeyPair();
    const tarball = samplePluginTarball({ namespace: "greeter", version: "0.3.0" });
    await writeFile(join(dataDir, "greeter.tgz"), tarball);
    await writeFile(
      join(dataDir, "greeter.tgz.sig"),
      JSON.stringify(signIntegrity(sha512Integrity(tarball), key.privateKeyPem)),
    );
    await writeFile(join(dataDir, "me.pub"), key.publicKeyPem);
    const on = ["--data-dir", dataDir];
    await ok("airlock", [
      "install",
      join(dataDir, "greeter.tgz"),
      "--trust-key",
      join(dataDir, "me.pub"),
      ...on,
    ]);
    await ok("airlock", ["agents", "level", "example", "manage", ...on]);
    await ok("airlock", ["agents", "create", "zz-empty", ...on]);
    await host?.stop();
    const out = await start();
    expect(out).not.toMatch(/\(installed\)/);
    expect(out).toMatch(/Plugins:.*notes@1\.0\.0/);
    expect(out).toMatch(/Plugins:.*greeter@0\.3\.0/);
    expect(out).toMatch(/MCP \(example\):[^\n]*knowledge: manage\)/);
    expect(out).toMatch(/MCP \(zz-empty\):[^\n]*\(no tools enabled; knowledge: read\)/);
    expect(out.indexOf("MCP (example)")).toBeLessThan(out.indexOf("MCP (zz-empty)"));
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
