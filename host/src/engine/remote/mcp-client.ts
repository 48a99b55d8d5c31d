// The MCP client SDK (@modelcontextprotocol/client and its stdio transport), imported when the
// host opens its first remote session instead of when the host's modules load: on top of the
// server SDK every host loads, the import is ≈ 100–130 ms of start-up (`airlock mcp`, each CLI
// command), and most hosts serve no remote MCP server.
// Invariant: the modules are imported once; every session shares the one promise.
import type { Client, ProtocolError, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import type { StdioClientTransport } from "@modelcontextprotocol/client/stdio";

/** The classes a remote session is made of. */
export interface McpClientSdk {
  Client: typeof Client;
  ProtocolError: typeof ProtocolError;
  StreamableHTTPClientTransport: typeof StreamableHTTPClientTransport;
  StdioClientTransport: typeof StdioClientTransport;
}

let loading: Promise<McpClientSdk> | undefined;

export function loadMcpClient(): Promise<McpClientSdk> {
  loading ??= Promise.all([
    import("@modelcontextprotocol/client"),
    import("@modelcontextprotocol/client/stdio"),
  ]).then(([client, stdio]) => ({
    Client: client.Client,
    ProtocolError: client.ProtocolError,
    StreamableHTTPClientTransport: client.StreamableHTTPClientTransport,
    StdioClientTransport: stdio.StdioClientTransport,
  }));
  return loading;
}
