// The MCP baseline of row 0: a bare server built on the same SDK version Airlock serves with
// (`@modelcontextprotocol/server` v2), one `echo` tool, served the way the SDK documents it:
// createMcpHandler behind @hono/node-server for HTTP, serveStdio in its own process for stdio.
// No auth, no pipeline, no sandbox: what the same SDK costs on its own.
import type { AddressInfo } from "node:net";
import { createAdaptorServer } from "@hono/node-server";
import { createMcpHandler, Server } from "@modelcontextprotocol/server";
import type { Hop } from "./hop.ts";

const ECHO = {
  name: "echo",
  description: "Echoes the text back.",
  inputSchema: {
    type: "object" as const,
    properties: { text: { type: "string" } },
    required: ["text"],
    additionalProperties: false,
  },
};

/**
 * The low-level Server with one tool and a raw JSON Schema, as Airlock's own factory builds it;
 * with `hop`, its echo answers through one process hop (bench/lib/hop.ts): row 0's floor.
 */
export function bareEchoServer(hop?: Hop): Server {
  const server = new Server({ name: "bare", version: "1.0.0" }, { capabilities: { tools: {} } });
  server.setRequestHandler("tools/list", async () => ({ tools: [ECHO] }));
  server.setRequestHandler("tools/call", async (request) => {
    const text = (request.params.arguments as { text?: unknown } | undefined)?.text;
    if (request.params.name !== "echo" || typeof text !== "string") {
      return { content: [{ type: "text", text: "unknown tool or bad input" }], isError: true };
    }
    const echoed = hop === undefined ? text : await hop.call(text);
    return { content: [{ type: "text", text: `echo: ${echoed}` }] };
  });
  return server;
}

export interface BareHttp {
  url: string;
  close(): Promise<void>;
}

export async function startBareHttp(hop?: Hop): Promise<BareHttp> {
  const handler = createMcpHandler(() => bareEchoServer(hop));
  const server = createAdaptorServer({ fetch: (request: Request) => handler.fetch(request) });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    async close() {
      await handler.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
