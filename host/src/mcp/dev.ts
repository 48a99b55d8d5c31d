// The host half of `airlock-plugin dev` (loaded by the SDK's CLI with a dynamic import, so
// sdk/ never imports host/ statically): serves ONE plugin over MCP with its bare tool names,
// in the real sandbox (isolated-vm, in-process mode) with local grants — a throwaway data
// directory, one agent `dev` with every regular tool enabled, the secrets and knowledge level
// the author gives, approvals auto-granted (the author is the operator).
// Invariants: stdio mode writes nothing but MCP to `stdout` (status lines go to `log`); the
// throwaway data directory is removed on exit; a bad plugin fails closed with the installer's code.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Readable, Writable } from "node:stream";
import { startAdminServer } from "../api/server.ts";
import { createHost } from "../host.ts";
import type { AirlockHost } from "../host-types.ts";
import type { AgentKnowledgeLevel } from "../store/types.ts";
import { serveMcpStdio } from "./stdio.ts";

export const DEV_AGENT = "dev";

export interface PluginDevOptions {
  tarball: Uint8Array;
  /** Recorded as the install source, e.g. `file:/path/to/plugin`. */
  source: string;
  transport:
    | { kind: "stdio"; stdin?: Readable; stdout?: Writable }
    | { kind: "http"; port: number; hostname?: string };
  secrets?: Record<string, string>;
  /** Default "write". */
  knowledgeLevel?: AgentKnowledgeLevel;
  /** Loopback/private hosts ctx.fetch may reach (a local test server); default none. */
  allowPrivate?: string[];
  /** Status lines for the author (stderr). */
  log: (line: string) => void;
  /** HTTP mode: resolves when the server should stop (default SIGINT/SIGTERM). */
  until?: () => Promise<unknown>;
}

export interface PluginDevSession {
  namespace: string;
  version: string;
  tools: string[];
}

async function prepare(host: AirlockHost, options: PluginDevOptions): Promise<PluginDevSession> {
  const report = await host.plugins.installTarball(options.tarball, options.source, { allowUnsigned: true });
  await host.createAgent(DEV_AGENT);
  const regular = (await host.listTools()).filter((t) => t.namespace === report.namespace).map((t) => t.id);
  if (regular.length > 0)
    await host.setToolsEnabled(DEV_AGENT, Object.fromEntries(regular.map((id) => [id, true])));
  if (options.secrets !== undefined && Object.keys(options.secrets).length > 0) {
    await host.setSecrets(DEV_AGENT, options.secrets);
  }
  await host.setKnowledgeLevel(DEV_AGENT, options.knowledgeLevel ?? "write");
  for (const view of await host.listAgentTools(DEV_AGENT)) {
    if (view.namespace === report.namespace && !view.served) {
      options.log(
        `note: ${view.name} is not served: missing secrets ${view.missingSecrets.join(", ")} (pass --secret key=value)`,
      );
    }
  }
  return { namespace: report.namespace, version: report.version, tools: regular };
}

function waitForSignal(): Promise<void> {
  return new Promise((resolve) => {
    const stop = () => {
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
      resolve();
    };
    process.on("SIGINT", stop);
    process.on("SIGTERM", stop);
  });
}

/** Serves the plugin until the MCP client goes away (stdio) or `until` resolves (http). */
export async function servePluginDev(options: PluginDevOptions): Promise<PluginDevSession> {
  const dataDir = await mkdtemp(join(tmpdir(), "airlock-plugin-dev-"));
  let host: AirlockHost | undefined;
  try {
    host = await createHost({
      dataDir,
      sandbox: { mode: "in-process" },
      autoApprove: true,
      egress: options.allowPrivate === undefined ? {} : { allowPrivate: options.allowPrivate },
      onInternalError: (what, error) =>
        options.log(`host: ${what}: ${error instanceof Error ? error.message : String(error)}`),
    });
    const session = await prepare(host, options);
    const mcp = {
      naming: "bare" as const,
      autoApprove: true,
      serverName: `airlock-plugin dev (${session.namespace})`,
    };
    options.log(
      `serving ${session.namespace}@${session.version} (${session.tools.map((t) => t.split(":")[1]).join(", ")})`,
    );
    if (options.transport.kind === "stdio") {
      const { stdin, stdout } = options.transport;
      await serveMcpStdio(host, DEV_AGENT, {
        ...mcp,
        ...(stdin === undefined ? {} : { stdin }),
        ...(stdout === undefined ? {} : { stdout }),
      });
      return session;
    }
    const stopped = (options.until ?? waitForSignal)();
    const server = await startAdminServer(host, {
      port: options.transport.port,
      hostname: options.transport.hostname ?? "127.0.0.1",
      mcp,
      log: (error) => options.log(`server: ${error instanceof Error ? error.message : String(error)}`),
    });
    const token = await host.issueToken("agent", DEV_AGENT, "airlock-plugin dev");
    options.log(`MCP endpoint: ${server.mcpUrl(DEV_AGENT)}`);
    options.log(`token:        ${token.token}  (Authorization: Bearer …)`);
    try {
      await stopped;
    } finally {
      await server.close();
    }
    return session;
  } finally {
    await host?.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}
