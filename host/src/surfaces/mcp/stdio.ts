// Serves one agent's MCP server over stdio (`airlock mcp --agent <slug>`): JSON-RPC on
// stdin/stdout, for MCP clients that spawn their servers. The SDK's serveStdio negotiates the
// era per connection (a 2026-07-28 `server/discover` or a 2025 `initialize`) and calls the same
// factory as HTTP; tool-list changes of the agent (and resource-list changes with them: the
// tools' UIs) are sent on the connection (2025: as
// notifications; 2026-07-28: on the client's listen stream, routed by serveStdio). Changes an
// operator makes in another process (`airlock agents enable`, a running `airlock start`) reach
// this one by a poll of what the agent is served (every `watchMs`, one catalogue snapshot); a
// notification goes out only when that set really changed.
// Invariants: stdout carries nothing but MCP messages (callers route their own logging to
// stderr); the returned promise settles when the client closes stdin or the transport fails.
import { randomUUID } from "node:crypto";
import type { Readable, Writable } from "node:stream";
import type { LoggingLevel, Server } from "@modelcontextprotocol/server";
import { StdioServerTransport, serveStdio } from "@modelcontextprotocol/server/stdio";
import type { AirlockHost } from "../../contracts/host.ts";
import { RunCache } from "./run-cache.ts";
import { createAgentMcpServer, type McpServerOptions } from "./server.ts";

export interface StdioOptions extends McpServerOptions {
  stdin?: Readable;
  stdout?: Writable;
  /** The connection's conversation (ctx.state); default a fresh id. */
  conversationId?: string;
  /** How often changes made by other processes are looked for (ms; 0 = never); default 1000. */
  watchMs?: number;
}

/** What the agent is served, as a comparable string (names, descriptions, schemas). */
async function servedSignature(host: AirlockHost, agent: string, options: McpServerOptions): Promise<string> {
  const run = await host.startRun({
    agent,
    ...(options.tools === undefined ? {} : { tools: options.tools }),
    ...(options.groups === undefined ? {} : { groups: options.groups }),
    ...(options.harness === undefined ? {} : { harness: options.harness }),
  });
  const uis = (await host.listUiResources(agent)).map((v) => [v.uri, v.integrity]);
  return JSON.stringify([
    run.tools().map((t) => [t.id, t.description, t.inputSchema, t.outputSchema ?? null, t.ui ?? null]),
    uis,
  ]);
}

/** Serves until the input ends; resolves then (the caller closes the host). */
export async function serveMcpStdio(
  host: AirlockHost,
  agent: string,
  options: StdioOptions = {},
): Promise<void> {
  const { stdin, stdout, conversationId, watchMs = 1000, ...serverOptions } = options;
  const conversation = conversationId ?? `mcp-${randomUUID()}`;
  const servers = new Set<Server>();
  const runs = new RunCache(host);
  let level: LoggingLevel | undefined;
  let last = await servedSignature(host, agent, serverOptions);
  let checking: Promise<void> | undefined;
  const check = () => {
    checking ??= servedSignature(host, agent, serverOptions)
      .then((now) => {
        if (now === last) return;
        last = now;
        runs.invalidate(agent);
        for (const server of servers) {
          server.sendToolListChanged().catch(() => undefined);
          server.sendResourceListChanged().catch(() => undefined); // the UIs of the served tools
        }
      })
      .catch((error: unknown) => console.error("airlock mcp: watching the tool list:", error))
      .finally(() => {
        checking = undefined;
      });
  };
  const off = host.on("tools.changed", (change) => {
    if (change.agent === null || change.agent === agent) check();
  });
  const watch = watchMs > 0 ? setInterval(check, watchMs) : undefined;
  watch?.unref();
  const input = stdin ?? process.stdin;
  const ended = new Promise<void>((resolve) => {
    input.once("end", resolve);
    input.once("close", resolve);
  });
  const handle = serveStdio(
    ({ era }) => {
      const server = createAgentMcpServer(host, agent, serverOptions, {
        era,
        conversationId: conversation,
        logLevel: async () => level,
        setLogLevel: async (chosen) => {
          level = chosen;
        },
        runs,
      });
      servers.add(server);
      server.onclose = () => servers.delete(server);
      return server;
    },
    {
      transport: new StdioServerTransport(input, stdout ?? process.stdout),
      onerror: (error) => console.error("airlock mcp:", error.message),
    },
  );
  await ended;
  off();
  runs.close();
  if (watch !== undefined) clearInterval(watch);
  await checking;
  await handle.close();
}
