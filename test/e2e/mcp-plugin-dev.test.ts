// `airlock-plugin dev` as an author runs it: the SDK's CLI builds a plugin from source and
// serves it over MCP on stdio with bare tool names, in the real sandbox; driven by the MCP
// SDK's StdioClientTransport. Also the HTTP mode of the host half, in-process, and `--watch`:
// a saved edit is rebuilt and reloaded into the running dev host, seen through the same MCP
// client; a broken edit is printed and the last good version keeps serving.
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, expect, test } from "vitest";
import { kitTarball } from "../../host/src/surfaces/http/test-support.ts";
import { servePluginDev } from "../../host/src/surfaces/mcp/dev.ts";
import { copyFixture, type FixtureCopy } from "../../sdk/test/support/fixtures.ts";

const BIN = fileURLToPath(new URL("../../sdk/bin/airlock-plugin.ts", import.meta.url));
let fixture: FixtureCopy;

beforeAll(async () => {
  fixture = await copyFixture("notes");
});
afterAll(async () => {
  await fixture.remove();
});

test("serves a plugin built from source over stdio with bare tool names", async () => {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ["--no-node-snapshot", BIN, "dev", fixture.dir, "--secret", "notes_api_key=dev-key"],
    env: { PATH: process.env.PATH ?? "" },
    stderr: "pipe",
  });
  const client = new Client({ name: "author", version: "1.0.0" });
  await client.connect(transport);
  const tools = (await client.listTools()).tools;
  expect(tools.map((t) => t.name).sort()).toEqual(["appendNote", "searchNotes"]);
  expect(tools.find((t) => t.name === "searchNotes")?.annotations).toMatchObject({ readOnlyHint: true });
  const result = (await client.callTool({
    name: "searchNotes",
    arguments: { query: "milk", limit: null },
  })) as CallToolResult;
  expect(result.structuredContent).toEqual({ query: "milk", limit: 10 });
  // appendNote declares an output schema its code does not honour: the host says so to the model.
  const broken = (await client.callTool({
    name: "appendNote",
    arguments: { id: "groceries", line: "milk", tags: null },
  })) as CallToolResult;
  expect(broken.isError).toBe(true);
  expect(JSON.stringify(broken.content)).toContain("output schema");
  await client.close();
});

test("serves over streamable HTTP and prints the URL and a token", async () => {
  const lines: string[] = [];
  let stop: () => void = () => undefined;
  const stopped = new Promise<void>((resolve) => {
    stop = resolve;
  });
  let announce: (url: string, token: string) => void = () => undefined;
  const ready = new Promise<{ url: string; token: string }>((resolve) => {
    announce = (url, token) => resolve({ url, token });
  });
  const serving = servePluginDev({
    tarball: kitTarball(),
    source: "test:kit",
    transport: { kind: "http", port: 0 },
    log: (line) => {
      lines.push(line);
      const url = lines.map((l) => /^MCP endpoint: (\S+)/.exec(l)?.[1]).find(Boolean);
      const token = lines.map((l) => /^token:\s+(\S+)/.exec(l)?.[1]).find(Boolean);
      if (url !== undefined && token !== undefined) announce(url, token);
    },
    until: () => stopped,
  });
  const { url, token } = await ready;
  const client = new Client({ name: "author", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  expect((await client.listTools()).tools.map((t) => t.name)).toContain("echo");
  const written = (await client.callTool({ name: "write", arguments: {} })) as CallToolResult;
  expect(written.content).toEqual([{ type: "text", text: "written" }]);
  await client.close();
  stop();
  expect(await serving).toMatchObject({ namespace: "kit", version: "1.0.0" });
  expect(lines.some((l) => l.includes("keyed is not served"))).toBe(true);
});

test("--watch rebuilds on save and reloads into the running sandbox; a broken save keeps the last good version", async () => {
  const watched = await copyFixture("notes");
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ["--no-node-snapshot", BIN, "dev", watched.dir, "--watch", "--secret", "notes_api_key=dev-key"],
    env: { PATH: process.env.PATH ?? "" },
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString("utf8");
  });
  const client = new Client({ name: "author", version: "1.0.0" });
  const search = async () =>
    (
      (await client.callTool({
        name: "searchNotes",
        arguments: { query: "milk", limit: null },
      })) as CallToolResult
    ).structuredContent;
  const printed = (text: string) =>
    expect.poll(() => stderr, { timeout: 60_000, interval: 100 }).toContain(text);
  const file = join(watched.dir, "src", "search-notes.ts");
  try {
    await client.connect(transport);
    await printed("watching");
    expect(await search()).toEqual({ query: "milk", limit: 10 });
    await printed("call searchNotes: ok");

    const source = await readFile(file, "utf8");
    await writeFile(file, source.replace("input.limit ?? 10", "input.limit ?? 20"));
    await printed("reloaded: serving fixture-notes@0.3.0+dev.1 (appendNote, searchNotes)");
    expect(await search()).toEqual({ query: "milk", limit: 20 });
    expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(["appendNote", "searchNotes"]);

    await writeFile(file, source.replace("input.limit ?? 10", "input.limit ?? (")); // does not parse
    await printed("rebuild failed (");
    await printed("still serving the last good version");
    expect(await search()).toEqual({ query: "milk", limit: 20 });

    // the limits in force are the manifest's (cpuMs 500), as in production
    await writeFile(file, source.replace("input.limit ?? 10", "(() => { for (;;); })()"));
    await expect.poll(() => stderr.split("reloaded: serving").length - 1, { timeout: 60_000 }).toBe(2);
    const spun = (await client.callTool({
      name: "searchNotes",
      arguments: { query: "x", limit: null },
    })) as CallToolResult;
    expect(spun.isError).toBe(true);
    await printed("call searchNotes: AIRLOCK_SANDBOX_CPU_LIMIT the call used too much CPU (cpuMs = 500 ms)");
  } finally {
    await client.close();
    await watched.remove();
  }
}, 120_000);
