// The host half of `airlock-plugin dev` (loaded by the SDK's CLI with a dynamic import, so
// sdk/ never imports host/ statically): serves ONE plugin over MCP with its bare tool names,
// in the real sandbox (the production default: a worker process, the same limits, grants and
// egress checks as production) with local grants — a throwaway data directory, one agent `dev`
// with every regular tool enabled, the secrets and knowledge level the author gives, approvals
// auto-granted (the author is the operator). Each tool call is printed (`log`). With `watch`,
// rebuilt packages are installed into the running host as they come (`reload`), so the MCP
// client keeps its connection and sees the new code; a failed install keeps the last version.
// Invariants: stdio mode writes nothing but MCP to `stdout` (status lines go to `log`); the
// throwaway data directory is removed on exit; a bad plugin fails closed with the installer's code.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Readable, Writable } from "node:stream";
import type { AirlockHost } from "../../contracts/host.ts";
import type { AgentKnowledgeLevel } from "../../contracts/records.ts";
import { createHost } from "../../host.ts";
import { startAdminServer } from "../http/server.ts";
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
  /**
   * Called once the plugin is served, with `reload` (installs a rebuilt package — a new
   * version or the same precedence with other build metadata — and serves it; resolves to
   * `namespace@version`); returns the function that stops watching.
   */
  watch?: (reload: (tarball: Uint8Array) => Promise<string>) => () => void;
}

export interface PluginDevSession {
  namespace: string;
  version: string;
  tools: string[];
}

async function prepare(
  host: AirlockHost,
  options: PluginDevOptions,
  tarball: Uint8Array = options.tarball,
): Promise<PluginDevSession> {
  // a reload is the same plugin again: equal precedence (build metadata) and prereleases allowed
  const report = await host.plugins.installTarball(tarball, options.source, {
    allowUnsigned: true,
    allowDowngrade: true,
    allowPrerelease: true,
  });
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
      sandbox: { mode: "workers", workers: 1 },
      autoApprove: true,
      egress: options.allowPrivate === undefined ? {} : { allowPrivate: options.allowPrivate },
      onInternalError: (what, error) =>
        options.log(`host: ${what}: ${error instanceof Error ? error.message : String(error)}`),
    });
    const session = await prepare(host, options);
    options.log(
      `serving ${session.namespace}@${session.version} (${session.tools.map((t) => t.split(":")[1]).join(", ")})`,
    );
    printCalls(host, options.log);
    const served = host;
    const stopWatching = options.watch?.(async (tarball) => {
      const next = await prepare(served, options, tarball);
      return `${next.namespace}@${next.version} (${next.tools.map((t) => t.split(":")[1]).join(", ")})`;
    });
    try {
      return await serve(host, session, options);
    } finally {
      stopWatching?.();
    }
  } finally {
    await host?.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

/** One line per finished tool call: its name, how long it took, and its code when it failed. */
function printCalls(host: AirlockHost, log: (line: string) => void): void {
  /** The name the MCP client called it by (bare: no namespace). */
  const bare = (toolName: string) => toolName.slice(toolName.indexOf(":") + 1);
  host.on("tool.completed", (e) => {
    log(`call ${bare(e.toolName)}: ${e.isError ? "error result" : "ok"} (${Math.round(e.durationMs)} ms)`);
  });
  host.on("tool.failed", (e) => {
    log(`call ${bare(e.toolName)}: ${e.error.code} ${e.error.message} (${Math.round(e.durationMs)} ms)`);
  });
}

async function serve(
  host: AirlockHost,
  session: PluginDevSession,
  options: PluginDevOptions,
): Promise<PluginDevSession> {
  const mcp = {
    naming: "bare" as const,
    autoApprove: true,
    serverName: `airlock-plugin dev (${session.namespace})`,
  };
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
}
