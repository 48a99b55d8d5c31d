// Serves one agent's MCP server over stdio (`airlock mcp --agent <slug>`): JSON-RPC on
// stdin/stdout, for MCP clients that spawn their servers.
// Invariants: stdout carries nothing but MCP messages (callers must route their own logging to
// stderr); the returned promise settles when the client closes stdin or the transport fails.
import type { Readable, Writable } from "node:stream";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import type { AirlockHost } from "../host-types.ts";
import { createAgentMcpServer, type McpServerOptions } from "./server.ts";

export interface StdioOptions extends McpServerOptions {
  stdin?: Readable;
  stdout?: Writable;
}

/** Serves until the input ends; resolves then (the caller closes the host). */
export async function serveMcpStdio(
  host: AirlockHost,
  agent: string,
  options: StdioOptions = {},
): Promise<void> {
  const server = createAgentMcpServer(host, agent, options);
  const transport = new StdioServerTransport(options.stdin, options.stdout);
  const input = options.stdin ?? process.stdin;
  const ended = new Promise<void>((resolve) => {
    input.once("end", resolve);
    input.once("close", resolve);
    transport.onclose = () => resolve();
  });
  await server.connect(transport);
  await ended;
  await server.close();
}
