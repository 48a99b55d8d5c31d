// Code mode over MCP on a real socket, driven by the official SDK v2 client in both eras: the
// listing, search_tools, then run_code chaining two first-party tools, an inner call that waits
// for an operator's approval (approved, then denied), and an error inside the code.
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { AirlockHost } from "../../host/src/contracts/host.ts";
import { type AdminServer, startAdminServer } from "../../host/src/surfaces/http/server.ts";
import { type CodeModeHost, startCodeModeHost } from "../support/code-mode-host.ts";

let fx: CodeModeHost;
let host: AirlockHost;
let server: AdminServer;
let token: string;

beforeAll(async () => {
  fx = await startCodeModeHost({ mode: "in-process", plugins: ["notes", "render"], agents: ["alpha"] });
  host = fx.host;
  await host.setCodeMode("alpha", { enabled: true });
  token = (await host.issueToken("agent", "alpha", "mcp code mode")).token;
  server = await startAdminServer(host, { port: 0, log: () => undefined });
}, 120_000);
afterAll(async () => {
  await server?.close();
  await fx?.close();
});

interface Result {
  content: Array<{ type: string; text?: string }>;
  isError?: boolean;
  structuredContent?: Record<string, unknown>;
  _meta?: Record<string, unknown>;
}

async function connect(modern: boolean) {
  const client = new Client(
    { name: "code-mode", version: "1.0.0" },
    modern ? { versionNegotiation: { mode: { pin: "2026-07-28" } } } : {},
  );
  const transport = new StreamableHTTPClientTransport(new URL(server.mcpUrl("alpha")), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  return {
    names: async () => (await client.listTools()).tools.map((t) => t.name),
    call: async (name: string, args: Record<string, unknown>, onprogress?: (message?: string) => void) =>
      (await client.callTool(
        { name, arguments: args },
        onprogress === undefined ? {} : { onprogress: (p) => onprogress(p.message) },
      )) as Result,
    close: () => client.close(),
  };
}

/** Decides the next approval of alpha once it shows up. */
async function decideNext(approve: boolean): Promise<string> {
  for (;;) {
    const [pending] = await host.listApprovals("alpha");
    if (pending !== undefined) {
      await host.decideApproval(pending.id, approve ? { approve } : { approve, reason: "not today" });
      return pending.toolName;
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe.each([
  ["sdk v2, 2025-11-25", false],
  ["sdk v2, 2026-07-28", true],
])("%s", (_label, modern) => {
  test("lists search_tools and run_code, and search_tools answers declarations", async () => {
    const c = await connect(modern);
    expect(await c.names()).toEqual(
      expect.arrayContaining(["search_tools", "run_code", "render__renderChart"]),
    );
    const found = await c.call("search_tools", { query: "search notes" });
    expect(found.isError).toBeUndefined();
    expect(found.content[0]?.text).toContain("declare namespace tools.notes {");
    expect(found.content[0]?.text).toContain("function searchNotes(input: {");
    await c.close();
  });

  test("run_code chains two tools, waits for an approval inside, and returns one small result", async () => {
    const c = await connect(modern);
    const code = `
      const note = await tools.notes.writeNote({ title: "q3 ${modern}", content: "revenue 4 9 2", id: null, mode: null });
      const found = await tools.notes.searchNotes({ query: "revenue" });
      const chart = await tools.render.renderChart({ values: [4, 9, 2], filename: "q3" });
      console.log("found", found.hits.length);
      return { note: typeof note.id, found: found.hits.length > 0, chart: chart.filename };
    `;
    const notices: string[] = [];
    const [result, decided] = await Promise.all([
      c.call("run_code", { code }, (m) => notices.push(m ?? "")),
      decideNext(true),
    ]);
    expect(decided).toBe("notes:writeNote");
    expect(result.isError, JSON.stringify(result)).toBeUndefined();
    expect(result.structuredContent?.value).toEqual({ note: "string", found: true, chart: "q3.png" });
    expect(result.structuredContent?.log).toMatch(/^found [12]\n$/);
    expect(notices.join("\n")).toContain("notes:writeNote waits for an operator's approval");
    // the chart's PNG stayed inside: the model sees a few hundred bytes
    expect(JSON.stringify(result).length).toBeLessThan(1000);
    await c.close();
  });

  test("run_code answers a denied approval and an error inside it with their codes and line", async () => {
    const c = await connect(modern);
    const [denied] = await Promise.all([
      c.call("run_code", {
        code: 'await tools.notes.writeNote({ title: "nope", content: "x", id: null, mode: null });\nreturn 1;',
      }),
      decideNext(false),
    ]);
    expect(denied.isError).toBe(true);
    expect(denied._meta?.["airlock/errorCode"]).toBe("AIRLOCK_CODE_THREW");
    expect(denied.structuredContent?.error).toMatchObject({
      line: 1,
      innerCall: { tool: "notes:writeNote", code: "AIRLOCK_APPROVAL_DENIED" },
    });
    expect(denied.content[0]?.text).toContain("not today");

    const failed = await c.call("run_code", {
      code: "const ok = await tools.render.renderChart({ values: [1] });\nconst bad = await tools.render.renderChart({ values: [] });\nreturn bad;",
    });
    expect(failed.isError).toBe(true);
    expect(failed._meta?.["airlock/errorCode"]).toBe("AIRLOCK_CODE_THREW");
    expect(failed.structuredContent?.error).toMatchObject({
      line: 2,
      innerCall: { tool: "render:renderChart", code: "AIRLOCK_TOOL_INPUT_INVALID" },
    });
    await c.close();
  });
});
