// Baselines measured side by side with Airlock in the same run:
// - a worker_threads round trip (the floor for any out-of-thread call),
// - a round trip over a socket pair to a child process (the floor of a workers-sandbox call:
//   two writes, each waking the other process),
// - the same small piece of work run back to back and run after the thread slept (what waking
//   an idle CPU costs on this machine: the part of every round trip that is not the work),
// - a tool served by an MCP stdio server process: how third-party tools commonly run today
//   (a plain subprocess with the host's environment, no isolation beyond the process).
import { spawn } from "node:child_process";
import type { Socket } from "node:net";
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

const ECHO_PROCESS = `
const s = new (require("node:net").Socket)({ fd: 3, readable: true, writable: true });
s.on("data", (d) => s.write(d));
s.on("end", () => process.exit(0));
`;

/**
 * A child process that echoes what it reads on fd 3, a socket pair like the sandbox workers'
 * channel: one call = one 64-byte write each way.
 */
export async function startEchoProcess(): Promise<EchoWorker> {
  const child = spawn(process.execPath, ["-e", ECHO_PROCESS], {
    stdio: ["ignore", "ignore", "inherit", "pipe"],
  });
  const socket = child.stdio[3] as Socket;
  const payload = Buffer.alloc(64, 1);
  let pending: ((v: unknown) => void) | undefined;
  let received = 0;
  socket.on("data", (d: Buffer) => {
    received += d.length;
    if (received < payload.length) return;
    received = 0;
    const resolve = pending;
    pending = undefined;
    resolve?.(d);
  });
  const call = () =>
    new Promise<unknown>((resolve) => {
      pending = resolve;
      socket.write(payload);
    });
  await call(); // started and answering
  return {
    call,
    async close() {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      socket.end();
      await exited;
    },
  };
}

/** A small piece of plain work (a JSON round trip of a 40-item document): the idle-wake unit. */
const WORK_DOC = {
  items: Array.from({ length: 40 }, (_, i) => ({ id: i, name: `item ${i}`, tags: ["a", "b"] })),
};
export function smallWork(): number {
  return JSON.parse(JSON.stringify(WORK_DOC)).items.length;
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
