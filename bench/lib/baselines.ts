// Baselines measured side by side with Airlock in the same run:
// - a worker_threads round trip (the floor for any out-of-thread call),
// - a tool served by an MCP stdio server process: how third-party tools commonly run today
//   (a plain subprocess with the host's environment, no isolation beyond the process).
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const ECHO_WORKER = `
const { parentPort } = require("node:worker_threads");
parentPort.on("message", (m) => parentPort.postMessage(m));
`;

export interface EchoWorker {
  call(message: unknown): Promise<unknown>;
  close(): Promise<void>;
}

/** A worker_threads worker that echoes each message: one call = one round trip. */
export function startEchoWorker(): EchoWorker {
  const worker = new Worker(ECHO_WORKER, { eval: true });
  let pending: ((v: unknown) => void) | undefined;
  worker.on("message", (m) => {
    const resolve = pending;
    pending = undefined;
    resolve?.(m);
  });
  return {
    call(message) {
      return new Promise((resolve) => {
        pending = resolve;
        worker.postMessage(message);
      });
    },
    async close() {
      await worker.terminate();
    },
  };
}

export const MCP_STDIO_SERVER = fileURLToPath(new URL("../fixtures/mcp-stdio-server.ts", import.meta.url));

export interface StdioToolServer {
  client: Client;
  call(tool: string, input: Record<string, unknown>): Promise<unknown>;
  close(): Promise<void>;
}

/** Spawns the MCP stdio server serving the given bundle and connects the SDK's Client to it. */
export async function startStdioToolServer(bundlePath: string): Promise<StdioToolServer> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [MCP_STDIO_SERVER, bundlePath],
    stderr: "ignore",
  });
  const client = new Client({ name: "airlock-bench", version: "1.0.0" });
  await client.connect(transport);
  return {
    client,
    call: (tool, input) => client.callTool({ name: tool, arguments: input }),
    close: () => client.close(),
  };
}
