// One conversation with a remote MCP server over streamable HTTP, on the official SDK v2 client,
// for one listing or one tool call: connect, list (every page), call, close.
// Invariants: the client declares no capabilities (no sampling, elicitation or roots) and
// answers any request the server sends with an error, ending the session with
// AIRLOCK_REMOTE_SERVER_REQUEST_REFUSED; every byte goes through the gated fetch (gate-fetch.ts);
// the session's signal bounds every wait, and close() releases every connection; failures are
// AirlockErrors with AIRLOCK_REMOTE_* (or the gate's AIRLOCK_FETCH_*) codes.
import { AirlockError, hasCode } from "@airlock/sdk/errors";
import { SDK_VERSION } from "@airlock/sdk/manifest";
import { Client, ProtocolError, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import type { RemoteTool } from "./definitions.ts";
import { remoteError } from "./errors.ts";
import { createGatedFetch, type GateOptions } from "./gate-fetch.ts";

/** Pages of tools/list read at most (a server that pages forever is cut off here). */
const MAX_PAGES = 20;
const METHOD_NOT_FOUND = -32601;

export interface RemoteCallResult {
  content: unknown[];
  isError?: boolean;
  structuredContent?: unknown;
}

export interface Session {
  listTools(): Promise<RemoteTool[]>;
  callTool(
    name: string,
    input: Record<string, unknown>,
    onProgress: (p: { progress: number; total?: number; message?: string }) => void,
  ): Promise<RemoteCallResult>;
  /** The server's name and version from the handshake, or null. */
  server(): { name: string; version: string } | null;
  close(): Promise<void>;
}

export interface SessionOptions extends Omit<GateOptions, "signal"> {
  url: string;
  /** Ends the session (a deadline, the caller's cancellation). */
  signal: AbortSignal;
}

export async function openSession(options: SessionOptions): Promise<Session> {
  const controller = new AbortController();
  const onAbort = () => controller.abort(options.signal.reason);
  if (options.signal.aborted) onAbort();
  else options.signal.addEventListener("abort", onAbort, { once: true });
  const signal = controller.signal;
  const gate = createGatedFetch({ ...options, signal, onFailure: (error) => controller.abort(error) });
  let refused: (Error & { code: string }) | undefined;

  const client = new Client({ name: "airlock", version: SDK_VERSION }, { capabilities: {} });
  client.fallbackRequestHandler = async (request) => {
    refused ??= remoteError(
      "AIRLOCK_REMOTE_SERVER_REQUEST_REFUSED",
      `the remote MCP server sent a "${String(request.method).slice(0, 80)}" request; Airlock answers none (no sampling, elicitation or roots)`,
      { method: String(request.method).slice(0, 80) },
    );
    // The refusal goes back to the server first; then the session ends with this code.
    queueMicrotask(() => controller.abort(refused));
    throw new ProtocolError(METHOD_NOT_FOUND, "Airlock does not serve this request");
  };
  const transport = new StreamableHTTPClientTransport(new URL(options.url), {
    fetch: gate.fetch,
    reconnectionOptions: {
      maxRetries: 0,
      initialReconnectionDelay: 1000,
      maxReconnectionDelay: 1000,
      reconnectionDelayGrowFactor: 1,
    },
  });

  /** The code this session's failure is reported with: refusal > gate > abort reason > the error. */
  function explain(error: unknown): Error & { code: string } {
    if (refused !== undefined) return refused;
    const gated = gate.failure();
    if (gated !== undefined) return gated;
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

  async function guarded<T>(work: Promise<T>): Promise<T> {
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
      throw explain(error);
    }
  }

  async function close(): Promise<void> {
    options.signal.removeEventListener("abort", onAbort);
    if (!signal.aborted) controller.abort(new AirlockError("AIRLOCK_REMOTE_UNREACHABLE", "session closed"));
    await client.close().catch((closing: unknown) => void closing); // the session is over either way
    await gate.close();
  }

  try {
    await guarded(client.connect(transport, { signal }));
  } catch (error) {
    await close();
    throw error;
  }

  return {
    async listTools() {
      const tools: RemoteTool[] = [];
      let cursor: string | undefined;
      for (let page = 0; page < MAX_PAGES; page++) {
        const listed = await guarded(
          client.listTools(cursor === undefined ? {} : { cursor }, { signal, timeout: 2_147_483_647 }),
        );
        tools.push(...(listed.tools as RemoteTool[]));
        cursor = listed.nextCursor;
        if (cursor === undefined) return tools;
      }
      throw remoteError(
        "AIRLOCK_REMOTE_PROTOCOL",
        `the remote MCP server lists more than ${MAX_PAGES} pages of tools`,
      );
    },
    async callTool(name, input, onProgress) {
      const result = await guarded(
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
    server() {
      const info = client.getServerVersion();
      return info === undefined
        ? null
        : { name: String(info.name).slice(0, 200), version: String(info.version).slice(0, 100) };
    },
    close,
  };
}
