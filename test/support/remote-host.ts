// A real host (SQLite, in-process sandbox) with its admin API and MCP endpoint on a loopback
// socket, and an SDK v2 client toward that endpoint: what the remote-plugin suites drive.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import type { HostOptions } from "../../host/src/config.ts";
import type { AirlockHost } from "../../host/src/contracts/host.ts";
import { createHost } from "../../host/src/host.ts";
import { testStore } from "../../host/src/state/store/test-store.ts";
import { type AdminServer, startAdminServer } from "../../host/src/surfaces/http/server.ts";

export interface RemoteHost {
  host: AirlockHost;
  server: AdminServer;
  dataDir: string;
  tokens: Record<string, string>;
  /** Every onInternalError report and every line of the admin server's error log, as text. */
  internal: string[];
  /** Approves (or denies) every approval as it is requested, until turned off. */
  autoDecide(approve: boolean): () => void;
  mcp(agent: string): Promise<McpCaller>;
  close(): Promise<void>;
}

export interface McpResult {
  content: Array<Record<string, unknown>>;
  isError?: boolean;
  structuredContent?: unknown;
  _meta?: Record<string, unknown>;
}

export interface McpCaller {
  names(): Promise<string[]>;
  call(
    name: string,
    args: Record<string, unknown>,
    onprogress?: (p: { progress: number; total?: number | undefined; message?: string | undefined }) => void,
  ): Promise<McpResult>;
  /** prompts/list: the names of the prompts offered. */
  prompts(): Promise<string[]>;
  /** prompts/get: the text of the prompt's first message. */
  prompt(name: string): Promise<string>;
  close(): Promise<void>;
}

export async function startRemoteHost(options: Partial<HostOptions> = {}): Promise<RemoteHost> {
  const dataDir = await mkdtemp(join(tmpdir(), "airlock-remote-"));
  const internal: string[] = [];
  const report = (what: string, error: unknown) =>
    internal.push(
      `${what}: ${error instanceof Error ? `${error.message} ${String((error as { cause?: unknown }).cause ?? "")}` : String(error)}`,
    );
  const host = await createHost({
    dataDir,
    store: testStore(dataDir),
    sandbox: { mode: "in-process" },
    onInternalError: report,
    ...options,
  });
  const server = await startAdminServer(host, { port: 0, log: (error) => report("admin server", error) });
  const tokens: Record<string, string> = {};
  for (const agent of ["alpha", "beta"]) {
    await host.createAgent(agent);
    tokens[agent] = (await host.issueToken("agent", agent, "test")).token;
  }
  tokens.operator = (await host.issueToken("operator", undefined, "test")).token;
  return {
    host,
    server,
    dataDir,
    tokens,
    internal,
    autoDecide(approve) {
      return host.on("permission.required", (event) => {
        void host.decideApproval(event.approvalId, { approve, reason: "test decision" });
      });
    },
    async mcp(agent) {
      const client = new Client({ name: "remote-test", version: "1.0.0" });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(server.mcpUrl(agent)), {
          requestInit: { headers: { authorization: `Bearer ${tokens[agent]}` } },
        }),
      );
      return {
        names: async () => (await client.listTools()).tools.map((t) => t.name).sort(),
        call: async (name, args, onprogress) =>
          (await client.callTool(
            { name, arguments: args },
            onprogress === undefined ? {} : { onprogress },
          )) as McpResult,
        prompts: async () => (await client.listPrompts()).prompts.map((p) => p.name),
        async prompt(name) {
          const got = await client.getPrompt({ name });
          const content = got.messages[0]?.content;
          return content !== undefined && content.type === "text" ? content.text : "";
        },
        close: () => client.close(),
      };
    },
    async close() {
      await server.close();
      await host.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
