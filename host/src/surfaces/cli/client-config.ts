// MCP client configurations the CLI prints (the `airlock start` banner, `airlock mcp --help`),
// each one meant to be pasted as printed. A stdio entry names this Node (24) by absolute path and
// this checkout's bin by absolute path, so it runs without `airlock` on the client's PATH (an
// MCP client such as Claude Desktop starts servers with a minimal PATH). HTTP entries carry the
// URL and the agent token as an `Authorization: Bearer` header.
// Invariants: pure strings from the arguments, process.execPath and this file's location; every
// JSON value is produced by JSON.stringify (no hand-quoted paths or tokens).
import { fileURLToPath } from "node:url";

/** The `airlock` bin of this checkout (host/bin/airlock.ts), absolute. */
export const HOST_BIN = fileURLToPath(new URL("../../../bin/airlock.ts", import.meta.url));

/** `{"command": …, "args": […]}` that runs `airlock <args>` with this Node. */
export function stdioServerEntry(args: readonly string[]): { command: string; args: string[] } {
  return { command: process.execPath, args: ["--no-node-snapshot", HOST_BIN, ...args] };
}

export interface ClientConfig {
  /** Which clients take it and where it goes. */
  label: string;
  /** One line to paste (a JSON document or a shell command). */
  text: string;
}

/** Quotes a word for a POSIX shell when it needs it. */
function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'"'"'`)}'`;
}

/**
 * Configs for an agent's MCP endpoint: HTTP clients (URL + header), the Inspector, and a stdio
 * entry on `dataDir` (left out when null: a host on a shared store, whose URL is not printed).
 */
export function mcpClientConfigs(
  agent: string,
  url: string,
  token: string,
  dataDir: string | null,
): ClientConfig[] {
  const name = `airlock-${agent}`;
  const headers = { Authorization: `Bearer ${token}` };
  const inspector = [
    "npx",
    "@modelcontextprotocol/inspector",
    "--cli",
    url,
    "--transport",
    "http",
    "--header",
    `Authorization: Bearer ${token}`,
    "--method",
    "tools/list",
  ];
  const stdio: ClientConfig[] =
    dataDir === null
      ? []
      : [
          {
            label: "Claude Desktop (claude_desktop_config.json; stdio, on this machine)",
            text: JSON.stringify({
              mcpServers: { [name]: stdioServerEntry(["mcp", "--agent", agent, "--data-dir", dataDir]) },
            }),
          },
        ];
  return [
    {
      label: "Cursor (~/.cursor/mcp.json) and other `mcpServers` clients",
      text: JSON.stringify({ mcpServers: { [name]: { url, headers } } }),
    },
    {
      label: "VS Code (.vscode/mcp.json)",
      text: JSON.stringify({ servers: { [name]: { type: "http", url, headers } } }),
    },
    ...stdio,
    { label: "MCP Inspector (CLI)", text: inspector.map(shellWord).join(" ") },
  ];
}
