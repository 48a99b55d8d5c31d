// One 2025-era HTTP exchange as an MCP Transport: a fresh server instance is connected to it,
// the one POSTed JSON-RPC message is delivered, and the exchange resolves to one HTTP Response.
// The response is plain JSON unless the server sends a related message (progress, a log line)
// before its result: then it becomes an SSE stream carrying those messages and the result, and
// closes. A notification (or a posted response) is acknowledged with 202.
// A request the server sends on the call's stream (an elicitation) goes out under a wire id unique
// in this process, kept in `asked` until the client POSTs its answer (legacy-http.ts delivers it
// here, under the server's own id) or the exchange ends.
// Invariants: single use; the Response promise always settles (an early close answers 503 with
// a JSON-RPC error); messages for other request ids are dropped (there is no standalone stream
// here: server-initiated notifications travel on the session's GET stream, list-changes.ts); an
// answer is taken only from the session the exchange serves.
import { randomUUID } from "node:crypto";
import type { JSONRPCMessage, Transport, TransportSendOptions } from "@modelcontextprotocol/server";

type Id = string | number;

export interface ExchangeOptions {
  /** Response headers added to every answer (e.g. the Mcp-Session-Id of an initialize). */
  headers?: Record<string, string>;
  /** The session this exchange serves, and the process's map of requests awaiting an answer. */
  sessionId?: string;
  asked?: Map<string, ExchangeTransport>;
}

const encoder = new TextEncoder();

export class ExchangeTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: Transport["onmessage"];
  sessionId?: string;

  readonly #headers: Record<string, string>;
  readonly #sessionId: string | undefined;
  readonly #asked: Map<string, ExchangeTransport> | undefined;
  /** wire id → the server's own id, of the requests this exchange sent and awaits. */
  readonly #outgoing = new Map<string, Id>();
  #primer: { id: Id; done: () => void } | undefined;
  #requestId: Id | undefined;
  #resolve: ((response: Response) => void) | undefined;
  #stream: ReadableStreamDefaultController<Uint8Array> | undefined;
  #done = false;
  #finish!: () => void;
  /** Settles once the exchange is over (answered, streamed to its end, or closed). */
  readonly finished = new Promise<void>((resolve) => {
    this.#finish = resolve;
  });

  constructor(options: ExchangeOptions = {}) {
    this.#headers = options.headers ?? {};
    this.#sessionId = options.sessionId;
    this.#asked = options.asked;
  }

  /** Delivers a message whose answer is swallowed (a synthetic initialize); resolves once answered. */
  prime(message: JSONRPCMessage): Promise<void> {
    if (!("id" in message)) return Promise.resolve();
    return new Promise<void>((resolve) => {
      this.#primer = { id: message.id as Id, done: resolve };
      this.onmessage?.(message);
    });
  }

  /** The client's answer to a request this exchange sent (from the session's next POST). */
  deliver(sessionId: string, message: JSONRPCMessage): void {
    if (this.#done || sessionId !== this.#sessionId || !("id" in message)) return;
    const wire = String(message.id);
    const own = this.#outgoing.get(wire);
    if (own === undefined) return;
    this.#outgoing.delete(wire);
    this.#asked?.delete(wire);
    this.onmessage?.({ ...message, id: own } as JSONRPCMessage);
  }

  async start(): Promise<void> {
    // Nothing to open: the exchange starts when handle() delivers its message.
  }

  /** Delivers the message and resolves with the HTTP answer to it. */
  handle(message: JSONRPCMessage): Promise<Response> {
    if (!("method" in message) || !("id" in message)) {
      // A notification or a response to a server request: acknowledged, nothing comes back here.
      this.onmessage?.(message);
      this.#end();
      return Promise.resolve(new Response(null, { status: 202, headers: this.#headers }));
    }
    this.#requestId = message.id;
    const answer = new Promise<Response>((resolve) => {
      this.#resolve = resolve;
    });
    this.onmessage?.(message);
    return answer;
  }

  async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    if (this.#done) return;
    if (
      this.#primer !== undefined &&
      !("method" in message) &&
      "id" in message &&
      message.id === this.#primer.id
    ) {
      this.#primer.done();
      this.#primer = undefined;
      return;
    }
    if ("method" in message && "id" in message && options?.relatedRequestId === this.#requestId) {
      // A request of the server (an elicitation): out under a process-unique id, answered by POST.
      const wire = `airlock-${randomUUID()}`;
      this.#outgoing.set(wire, message.id as Id);
      this.#asked?.set(wire, this);
      message = { ...message, id: wire };
    }
    const isResponse = !("method" in message) && "id" in message && message.id === this.#requestId;
    if (!isResponse && options?.relatedRequestId !== this.#requestId) return;
    if (isResponse && this.#stream === undefined) {
      this.#settle(
        new Response(JSON.stringify(message), {
          status: 200,
          headers: { "content-type": "application/json", ...this.#headers },
        }),
      );
      this.#end();
      return;
    }
    this.#upgrade();
    this.#stream?.enqueue(encoder.encode(`event: message\ndata: ${JSON.stringify(message)}\n\n`));
    if (isResponse) {
      this.#stream?.close();
      this.#end();
    }
  }

  #upgrade(): void {
    if (this.#stream !== undefined) return;
    const body = new ReadableStream<Uint8Array>({
      start: (controller) => {
        this.#stream = controller;
      },
      cancel: () => this.#end(),
    });
    this.#settle(
      new Response(body, {
        status: 200,
        headers: {
          "content-type": "text/event-stream",
          "cache-control": "no-cache",
          connection: "keep-alive",
          ...this.#headers,
        },
      }),
    );
  }

  #settle(response: Response): void {
    const resolve = this.#resolve;
    this.#resolve = undefined;
    resolve?.(response);
  }

  async close(): Promise<void> {
    if (this.#resolve !== undefined) {
      this.#settle(
        Response.json(
          {
            jsonrpc: "2.0",
            error: { code: -32603, message: "the exchange closed before its answer" },
            id: null,
          },
          { status: 503, headers: this.#headers },
        ),
      );
    }
    if (this.#stream !== undefined && !this.#done) this.#stream.close();
    this.#end();
    this.onclose?.();
  }

  #end(): void {
    this.#done = true;
    for (const wire of this.#outgoing.keys()) this.#asked?.delete(wire);
    this.#outgoing.clear();
    this.#finish();
  }
}
