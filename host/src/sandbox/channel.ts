// The framed message channel between the host and one sandbox worker process: the socket pair the
// worker is spawned with (its fd 3), in place of Node's IPC. Each message is v8-serialised
// (Uint8Array crosses as bytes) into a frame `[u32 LE length][payload]`; every message posted in
// one event-loop turn leaves in one write (several calls per syscall when several are ready),
// flushed from setImmediate. Messages posted with `postPlain` (data that is certain to serialise:
// strings, numbers, plain objects of them) are not serialised one by one: consecutive ones of a
// turn go as one frame whose payload is the array of them (one serialisation and, on the other
// side, one deserialisation for several calls or results). No protocol message is an array, so
// an array payload is always such a batch.
// Invariants: messages arrive in the order posted, whichever way they were posted; `post` never throws for a closed channel or a failed write (EPIPE, ECONNRESET: the
// other side is gone) — the channel closes, reports it once through `onClose`, and drops what is
// posted later; a message that cannot be serialised is refused by `post` (false) before anything
// is written, so one bad message never corrupts the stream; frames arrive whole and in order.
import type { Duplex } from "node:stream";
import { deserialize, serialize } from "node:v8";

export interface ChannelEvents<In> {
  message(message: In): void;
  /** Called once, when the stream ended, failed or was closed; `error` when it failed. */
  close(error?: Error): void;
}

const HEADER = 4;

export class Channel<Out, In> {
  readonly #stream: Duplex;
  readonly #events: ChannelEvents<In>;
  /** This turn's messages in order: serialised frames, and runs of plain messages (arrays). */
  #frames: Array<Buffer | Out[]> = [];
  #scheduled = false;
  #closed = false;
  #rest: Buffer | null = null;

  constructor(stream: Duplex, events: ChannelEvents<In>) {
    this.#stream = stream;
    this.#events = events;
    stream.on("data", (chunk: Buffer) => this.#read(chunk));
    stream.on("error", (error) => this.#end(error));
    stream.on("end", () => this.#end());
    stream.on("close", () => this.#end());
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Queues one message for this turn's write; false when closed or not serialisable. */
  post(message: Out): boolean {
    if (this.#closed) return false;
    let payload: Buffer;
    try {
      payload = serialize(message);
    } catch {
      return false; // a function, a symbol, a class with private state: the caller answers instead
    }
    this.#frames.push(payload);
    this.#schedule();
    return true;
  }

  /**
   * Queues one message that is certain to serialise (strings, numbers, plain objects of them;
   * never a function, a symbol or a class instance): it shares one frame with the plain messages
   * posted next to it. False when closed.
   */
  postPlain(message: Out): boolean {
    if (this.#closed) return false;
    const last = this.#frames.at(-1);
    if (Array.isArray(last)) last.push(message);
    else this.#frames.push([message]);
    this.#schedule();
    return true;
  }

  #schedule(): void {
    if (!this.#scheduled) {
      this.#scheduled = true;
      setImmediate(() => this.flush());
    }
  }

  /** Writes everything queued now (one write). */
  flush(): void {
    this.#scheduled = false;
    if (this.#frames.length === 0 || this.#closed) return;
    const queued = this.#frames;
    this.#frames = [];
    const parts: Buffer[] = [];
    for (const item of queued) {
      const payload = Array.isArray(item) ? serialize(item.length === 1 ? item[0] : item) : item;
      const header = Buffer.allocUnsafe(HEADER);
      header.writeUInt32LE(payload.length, 0);
      parts.push(header, payload);
    }
    const data =
      parts.length === 2 ? Buffer.concat(parts, parts[0]!.length + parts[1]!.length) : Buffer.concat(parts);
    this.#stream.write(data);
  }

  /** Flushes and closes our side; the peer sees the stream end. */
  close(): void {
    if (this.#closed) return;
    this.flush();
    this.#stream.end();
    this.#end();
  }

  #end(error?: Error): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#frames = [];
    if (error !== undefined) this.#stream.destroy();
    this.#events.close(error);
  }

  #read(chunk: Buffer): void {
    let buf = this.#rest === null ? chunk : Buffer.concat([this.#rest, chunk]);
    let at = 0;
    while (buf.length - at >= HEADER) {
      const length = buf.readUInt32LE(at);
      if (buf.length - at - HEADER < length) break;
      const start = at + HEADER;
      at = start + length;
      let message: In | In[];
      try {
        message = deserialize(buf.subarray(start, at)) as In | In[];
      } catch (error) {
        // a corrupt frame: the stream cannot be trusted past it
        this.#end(new Error("undecodable frame on the sandbox channel", { cause: error }));
        return;
      }
      if (this.#closed) return;
      if (!Array.isArray(message)) this.#events.message(message);
      else
        for (const m of message) {
          if (this.#closed) return;
          this.#events.message(m);
        }
    }
    if (at === buf.length) this.#rest = null;
    else {
      if (at > 0) buf = buf.subarray(at);
      this.#rest = buf;
    }
  }
}
