// The framed message channel between the host and one sandbox worker process: the socket pair the
// worker is spawned with (its fd 3), in place of Node's IPC. Each frame is `[u32 LE head][payload]`;
// the head's low 31 bits are the payload's length and its top bit says how the payload is encoded:
// set, UTF-8 JSON; clear, `v8.serialize` (which carries what JSON cannot: Uint8Array, undefined,
// -0, NaN). JSON is the fast path (≈ 3× cheaper both ways for a call or a result): every message
// posted with `postPlain` (data certain to be plain: strings, numbers, plain objects of them), and
// every message posted with `post` that `isPlainData` finds to be plain, goes as JSON; the rest
// is v8-serialised as it is posted. Consecutive JSON messages of one event-loop turn go as one
// frame whose payload is the array of them (one encoding and, on the other side, one parse for
// several calls or results); no protocol message is an array, so an array payload is always such
// a batch. Everything posted in one turn leaves in one write, flushed from setImmediate.
// `readSync` lets a side that expects an answer read the socket itself for a bounded moment (the
// worker, worker-entry.ts; the host for a lone call, worker-slot.ts); what it reads goes through
// the same framing, in stream order. `SpinGate` tells whether such a read has been paying.
// Invariants: messages arrive in the order posted, whichever way they were posted, and equal to
// what was posted (JSON is chosen only for data it round-trips exactly); `post` never throws for a
// closed channel or a failed write (EPIPE, ECONNRESET: the other side is gone) — the channel
// closes, reports it once through `onClose`, and drops what is posted later; a message that cannot
// be serialised is refused by `post` (false) before anything is written, so one bad message never
// corrupts the stream; frames arrive whole and in order.
import { readSync } from "node:fs";
import type { Duplex } from "node:stream";
import { deserialize, serialize } from "node:v8";

export interface ChannelEvents<In> {
  message(message: In): void;
  /** Called once, when the stream ended, failed or was closed; `error` when it failed. */
  close(error?: Error): void;
  /** Called after each write that flush() made (the worker waits for a reply here: readSync). */
  flushed?(): void;
}

const HEADER = 4;
/** The head's top bit: the payload is JSON (else v8-serialised). */
const JSON_FRAME = 0x8000_0000;
/** Nesting past this is not walked: such a message takes the v8 path. */
const MAX_PLAIN_DEPTH = 16;

/**
 * True when JSON round-trips `value` exactly: strings, booleans, null, finite numbers other than
 * -0, and arrays (no holes) and plain objects (prototype Object.prototype or null) of them, at
 * most MAX_PLAIN_DEPTH deep. Anything else (undefined, a typed array, a Date, a Map, a class
 * instance, a function) answers false.
 */
export function isPlainData(value: unknown, depth = 0): boolean {
  switch (typeof value) {
    case "string":
    case "boolean":
      return true;
    case "number":
      return Number.isFinite(value) && !Object.is(value, -0);
    case "object": {
      if (value === null) return true;
      if (depth >= MAX_PLAIN_DEPTH) return false;
      if (Array.isArray(value)) {
        for (let i = 0; i < value.length; i++) {
          if (!(i in value) || !isPlainData(value[i], depth + 1)) return false;
        }
        return true;
      }
      const proto: unknown = Object.getPrototypeOf(value);
      if (proto !== Object.prototype && proto !== null) return false;
      for (const key of Object.keys(value)) {
        if (!isPlainData((value as Record<string, unknown>)[key], depth + 1)) return false;
      }
      return true;
    }
    default:
      return false;
  }
}

/**
 * Whether reading the channel for the peer's next message (Channel.readSync) is likely to pay:
 * the share of recent waits answered within the budget, a moving average (weight 1/4), at least
 * one half. A share, not a mean time, so one wait stretched by a preempted CPU does not close it
 * for the next dozen; closed until a wait has been measured.
 */
export class SpinGate {
  readonly budgetMs: number;
  #hits: number | undefined;

  constructor(budgetMs: number) {
    this.budgetMs = budgetMs;
  }

  get open(): boolean {
    return this.#hits !== undefined && this.#hits >= 0.5;
  }

  /** One wait, from the write to the message that answered it. */
  record(tookMs: number): void {
    const hit = tookMs <= this.budgetMs ? 1 : 0;
    this.#hits = this.#hits === undefined ? hit : this.#hits + (hit - this.#hits) / 4;
  }

  reset(): void {
    this.#hits = undefined;
  }
}

export class Channel<Out, In> {
  readonly #stream: Duplex;
  readonly #events: ChannelEvents<In>;
  /** This turn's messages in order: v8-serialised frames, and runs of JSON messages (arrays). */
  #frames: Array<Buffer | Out[]> = [];
  #scheduled = false;
  #closed = false;
  /**
   * The bytes of an incomplete frame, gathered until it is whole (then joined once: joining at
   * every chunk would copy a large frame once per chunk), how many there are, and how many the
   * frame needs (its head once known, else HEADER).
   */
  #parts: Buffer[] = [];
  #have = 0;
  #need = 0;
  /** Decoded messages not yet handed out, from `#next` on (#read). */
  readonly #inbox: In[] = [];
  #next = 0;
  /** readSync's read buffer. */
  readonly #spin = Buffer.allocUnsafe(64 * 1024);

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
    if (isPlainData(message)) return this.postPlain(message);
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
   * Queues one message that is certain to be plain data (see isPlainData; `undefined` properties
   * are dropped, as absent ones): it travels as JSON, in one frame with the JSON messages posted
   * next to it. False when closed.
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

  /**
   * Writes everything queued now (one write); `notify` false skips the `flushed` event (a write
   * made early, whose reader reads for the answer later, if at all).
   */
  flush(notify = true): void {
    this.#scheduled = false;
    if (this.#frames.length === 0 || this.#closed) return;
    const queued = this.#frames;
    this.#frames = [];
    const parts: Buffer[] = [];
    for (const item of queued) {
      let payload: Buffer;
      let head: number;
      if (Array.isArray(item)) {
        payload = Buffer.from(JSON.stringify(item.length === 1 ? item[0] : item), "utf8");
        head = (payload.length | JSON_FRAME) >>> 0;
      } else {
        payload = item;
        head = payload.length;
      }
      const header = Buffer.allocUnsafe(HEADER);
      header.writeUInt32LE(head, 0);
      parts.push(header, payload);
    }
    const data =
      parts.length === 2 ? Buffer.concat(parts, parts[0]!.length + parts[1]!.length) : Buffer.concat(parts);
    this.#stream.write(data);
    if (notify) this.#events.flushed?.();
  }

  /**
   * Waits up to `budgetMs` for the peer's next bytes by reading `fd` (the stream's own descriptor,
   * non-blocking) on this thread, and handles what arrives as the stream would (frames, in order).
   * True when bytes arrived. For a process that knows an answer is coming and has nothing else to
   * do (a sandbox worker whose calls all wait for the host): the CPU stays awake instead of
   * halting, so the peer's write does not have to wake it (on a VM whose idle CPUs halt, that
   * wake-up is the largest cost of a round trip: docs/sandbox.md). Nothing is read while our own
   * write is still queued (the peer cannot have answered it), after the stream closed, or once
   * the read fails (end of stream, reset: the stream reports those itself).
   */
  readSync(fd: number, budgetMs: number): boolean {
    if (this.#closed || this.#stream.writableLength > 0) return false;
    const until = performance.now() + budgetMs;
    let n = -1;
    // a failed non-blocking read throws an Error: none of them needs a stack
    const stackTraceLimit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    try {
      do {
        try {
          n = readSync(fd, this.#spin, 0, this.#spin.length, null);
        } catch (error) {
          if ((error as { code?: unknown }).code === "EAGAIN") continue;
          return false;
        }
        break;
      } while (performance.now() < until);
    } finally {
      Error.stackTraceLimit = stackTraceLimit;
    }
    if (n <= 0) return false; // nothing came, or the end of the stream (the stream sees it too)
    // a copy: an incomplete frame's bytes are kept until the rest arrives
    this.#read(Buffer.from(this.#spin.subarray(0, n)));
    return true;
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
    this.#parts = [];
    this.#have = 0;
    this.#inbox.length = 0;
    this.#next = 0;
    if (error !== undefined) this.#stream.destroy();
    this.#events.close(error);
  }

  /**
   * Decodes the complete frames that `chunk` ends, onto the inbox, then hands the inbox's messages
   * out in order. Re-entrant: a handler may read the channel again (readSync: a worker waiting for
   * a ctx call's answer inside the call this message started); that read decodes onto the same
   * inbox and hands out what is still queued first, so every message is handed out once, in
   * stream order, whichever read reaches it.
   */
  #read(chunk: Buffer): void {
    let buf = chunk;
    if (this.#have > 0) {
      this.#parts.push(chunk);
      this.#have += chunk.length;
      if (this.#have < this.#need) return; // still incomplete: nothing new to hand out
      buf = Buffer.concat(this.#parts, this.#have);
      this.#parts = [];
      this.#have = 0;
    }
    let at = 0;
    let corrupt: unknown;
    while (buf.length - at >= HEADER) {
      const head = buf.readUInt32LE(at);
      const length = head & ~JSON_FRAME;
      if (buf.length - at - HEADER < length) break;
      const start = at + HEADER;
      at = start + length;
      let message: In | In[];
      try {
        message = (
          head >= JSON_FRAME
            ? JSON.parse(buf.toString("utf8", start, at))
            : deserialize(buf.subarray(start, at))
        ) as In | In[];
      } catch (error) {
        corrupt = error;
        break;
      }
      if (!Array.isArray(message)) this.#inbox.push(message);
      else for (const m of message) this.#inbox.push(m);
    }
    if (at < buf.length && corrupt === undefined) {
      const rest = buf.subarray(at);
      this.#parts = [rest];
      this.#have = rest.length;
      this.#need = rest.length >= HEADER ? HEADER + (rest.readUInt32LE(0) & ~JSON_FRAME) : HEADER;
    }
    const inbox = this.#inbox;
    while (this.#next < inbox.length) {
      if (this.#closed) return;
      const message = inbox[this.#next]!;
      this.#next++;
      this.#events.message(message);
    }
    // everything handed out (a nested read may have emptied it first): start again at 0
    if (this.#next === inbox.length) {
      inbox.length = 0;
      this.#next = 0;
    }
    // a corrupt frame: what came before it is handed out; the stream cannot be trusted past it
    if (corrupt !== undefined)
      this.#end(new Error("undecodable frame on the sandbox channel", { cause: corrupt }));
  }
}
