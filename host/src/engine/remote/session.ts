// One conversation with a remote MCP server on the official SDK v2 client, over a channel:
// streamable HTTP through the egress gate (httpChannel below) or a child process's stdio
// (stdio-channel.ts). Connect once, then list (every page) and call, operation after operation,
// until closed. The session pool (session-pool.ts) keeps an idle session for the next call;
// `use` binds the next operation to its own deadline and byte cap.
// Invariants: the client declares no capabilities (no sampling, elicitation or roots) and
// answers any request the server sends with an error, ending the operation with
// AIRLOCK_REMOTE_SERVER_REQUEST_REFUSED; over HTTP every byte goes through the gated fetch
// (gate-fetch.ts); the operation's signal bounds every wait; a session whose operation failed,
// was aborted or was refused, or whose server process exited, is never reusable; close()
// releases every connection (and ends the process); failures are AirlockErrors with
// AIRLOCK_REMOTE_* (or the gate's AIRLOCK_FETCH_*) codes.
import { AirlockError, hasCode } from "@airlock/sdk/errors";
import { SDK_VERSION } from "@airlock/sdk/manifest";
import type { Transport } from "@modelcontextprotocol/client";
import type { RemoteTool } from "./definitions.ts";
import { remoteError } from "./errors.ts";
import { createGatedFetch, type GateOptions } from "./gate-fetch.ts";
import { loadMcpClient, type McpClientSdk } from "./mcp-client.ts";
import { createOperationSlot, type OperationLimits } from "./session-operation.ts";

export type { OperationLimits } from "./session-operation.ts";

/** Pages of tools/list read at most (a server that pages forever is cut off here). */
const MAX_PAGES = 20;
const METHOD_NOT_FOUND = -32601;

export interface RemoteCallResult {
  content: unknown[];
  isError?: boolean;
  structuredContent?: unknown;
}

export interface Session {
  /** Binds the next operations (until the next `use`) to this deadline and byte cap. */
  use(limits: OperationLimits): void;
  /** Detaches the last operation's signal: the session waits idle, and nothing it held can break it. */
  idle(): void;
  listTools(): Promise<RemoteTool[]>;
  callTool(
    name: string,
    input: Record<string, unknown>,
    onProgress: (p: { progress: number; total?: number; message?: string }) => void,
  ): Promise<RemoteCallResult>;
  /** The server's name and version from the handshake, or null. */
  server(): { name: string; version: string } | null;
  /** Whether another operation may use this session: nothing failed, aborted or was refused. */
  reusable(): boolean;
  /** Whether the server answered that it no longer knows this session (HTTP 404). */
  expired(): boolean;
  close(): Promise<void>;
}

/** How a session reaches its server: the transport, and what the session asks of it. */
export interface Channel {
  transport: Transport;
  /** The first failure the channel saw itself (a gate refusal, a process that did not start). */
  failure(): (Error & { code: string }) | undefined;
  /** A new operation: the byte count restarts. */
  startOperation(): void;
  /** Whether the server said it no longer knows the session (HTTP 404). */
  sessionGone(): boolean;
  /** False once the server can no longer answer (its process exited). */
  alive(): boolean;
  close(): Promise<void>;
}

export type ChannelFactory = (hooks: {
  limits(): { signal: AbortSignal; maxBytes: number };
  onFailure(error: Error & { code: string }): void;
  /** The client SDK's classes (loaded with the first session: mcp-client.ts). */
  sdk: McpClientSdk;
}) => Channel;

export interface SessionOptions extends OperationLimits {
  channel: ChannelFactory;
}

/** Streamable HTTP through the egress gate. */
export function httpChannel(
  options: Omit<GateOptions, "limits" | "onFailure"> & { url: string },
): ChannelFactory {
  return (hooks) => {
    const gate = createGatedFetch({ ...options, limits: hooks.limits, onFailure: hooks.onFailure });
    const transport = new hooks.sdk.StreamableHTTPClientTransport(new URL(options.url), {
      fetch: gate.fetch,
      reconnectionOptions: {
        maxRetries: 0,
        initialReconnectionDelay: 1000,
        maxReconnectionDelay: 1000,
        reconnectionDelayGrowFactor: 1,
      },
    });
    return {
      transport,
      failure: () => gate.failure(),
      startOperation: () => gate.startOperation(),
      sessionGone: () => gate.sessionGone(),
      alive: () => true,
      close: () => gate.close(),
    };
  };
}

export async function openSession(options: SessionOptions): Promise<Session> {
  const sdk = await loadMcpClient();
  let closed = false;
  const slot = createOperationSlot(options.maxBytes);
  const gate = options.channel({
    limits: () => slot.limits(),
    onFailure: (reason) => slot.abort(reason),
    sdk,
  });
  function use(limits: OperationLimits): void {
    slot.use(limits);
    gate.startOperation();
  }
  const transport = gate.transport;
  use(options);
  let refused: (Error & { code: string }) | undefined;

  const client = new sdk.Client({ name: "airlock", version: SDK_VERSION }, { capabilities: {} });
  client.fallbackRequestHandler = async (request) => {
    refused ??= remoteError(
      "AIRLOCK_REMOTE_SERVER_REQUEST_REFUSED",
      `the remote MCP server sent a "${String(request.method).slice(0, 80)}" request; Airlock answers none (no sampling, elicitation or roots)`,
      { method: String(request.method).slice(0, 80) },
    );
    slot.breakSession();
    // The refusal goes back to the server first; then the operation ends with this code.
    const current = slot.controller();
    const reason = refused;
    queueMicrotask(() => current.abort(reason));
    throw new sdk.ProtocolError(METHOD_NOT_FOUND, "Airlock does not serve this request");
  };
  /** The code this session's failure is reported with: refusal > gate > abort reason > the error. */
  function explain(error: unknown): Error & { code: string } {
    if (refused !== undefined) return refused;
    const gated = gate.failure();
    if (gated !== undefined) return gated;
    const signal = slot.controller().signal;
    if (signal.aborted && hasCode(signal.reason)) return signal.reason as Error & { code: string };
    if (hasCode(error) && error.code.startsWith("AIRLOCK_")) return error as Error & { code: string };
    const message = error instanceof Error ? error.message : String(error);
    return remoteError(
      "AIRLOCK_REMOTE_PROTOCOL",
      `the remote MCP server answered badly: ${message.slice(0, 300)}`,
      {},
      error,
    );
  }

  async function guarded<T>(start: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const signal = slot.controller().signal;
    const work = start(signal);
    // The client's own promise may wait on a stream the gate has already failed; the abort
    // signal settles it at once.
    const aborted = new Promise<never>((_, reject) => {
      if (signal.aborted) reject(signal.reason);
      signal.addEventListener("abort", () => reject(signal.reason), { once: true });
    });
    aborted.catch((handled: unknown) => void handled); // settled by the race below or never read
    try {
      return await Promise.race([work, aborted]);
    } catch (error) {
      slot.breakSession();
      throw explain(error);
    }
  }

  async function close(): Promise<void> {
    if (closed) return;
    closed = true;
    slot.detach();
    const current = slot.controller();
    if (!current.signal.aborted) {
      current.abort(new AirlockError("AIRLOCK_REMOTE_UNREACHABLE", "session closed"));
    }
    await client.close().catch((closing: unknown) => void closing); // the session is over either way
    await gate.close();
  }

  try {
    await guarded((signal) => client.connect(transport, { signal }));
  } catch (error) {
    await close();
    throw error;
  }

  return {
    async listTools() {
      const tools: RemoteTool[] = [];
      let cursor: string | undefined;
      for (let page = 0; page < MAX_PAGES; page++) {
        const listed = await guarded((signal) =>
          client.listTools(cursor === undefined ? {} : { cursor }, { signal, timeout: 2_147_483_647 }),
        );
        tools.push(...(listed.tools as RemoteTool[]));
        cursor = listed.nextCursor;
        if (cursor === undefined) return tools;
      }
      slot.breakSession();
      throw remoteError(
        "AIRLOCK_REMOTE_PROTOCOL",
        `the remote MCP server lists more than ${MAX_PAGES} pages of tools`,
      );
    },
    async callTool(name, input, onProgress) {
      const result = await guarded((signal) =>
        client.callTool(
          { name, arguments: input },
          {
            signal,
            // The session's signal is the deadline; the SDK's own 60 s default must not cut in first.
            timeout: 2_147_483_647,
            onprogress: (p) => {
              const n: { progress: number; total?: number; message?: string } = { progress: p.progress };
              if (typeof p.total === "number") n.total = p.total;
              if (typeof p.message === "string") n.message = p.message;
              onProgress(n);
            },
          },
        ),
      );
      if (refused !== undefined) throw refused;
      return result as RemoteCallResult;
    },
    use(limits) {
      use(limits);
    },
    idle() {
      slot.idle();
    },
    reusable: () =>
      !closed &&
      !slot.broken() &&
      refused === undefined &&
      gate.failure() === undefined &&
      !gate.sessionGone() &&
      gate.alive(),
    expired: () => gate.sessionGone(),
    server() {
      const info = client.getServerVersion();
      return info === undefined
        ? null
        : { name: String(info.name).slice(0, 200), version: String(info.version).slice(0, 100) };
    },
    close,
  };
}
