// The framed channel over a real duplex pair: messages arrive whole and in the order posted,
// plain messages of one turn share one frame (one write for the turn), a message that cannot be
// serialised is refused by post without disturbing the stream, and a closed channel refuses both;
// a message travels as JSON only when JSON gives back exactly what was posted; readSync (a
// worker waiting for the host's answer) reads the socket itself, frames in order with the stream,
// also when a message's handler reads again;
// SpinGate opens for reading only while most recent waits were answered within its budget.
import { mkdtempSync, rmSync } from "node:fs";
import { connect, createServer, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { duplexPair } from "node:stream";
import { describe, expect, it } from "vitest";
import { Channel, isPlainData, SpinGate } from "./channel.ts";

type Msg = { type: string; n?: number; value?: unknown };

function pair() {
  const [a, b] = duplexPair();
  const received: Msg[] = [];
  const writes: number[] = [];
  const write = a.write.bind(a);
  /** The first frame head of each write (its top bit: the payload is JSON). */
  const heads: number[] = [];
  a.write = ((chunk: Buffer, ...rest: never[]) => {
    writes.push(chunk.length);
    heads.push(chunk.readUInt32LE(0));
    return write(chunk, ...rest);
  }) as typeof a.write;
  const sender = new Channel<Msg, Msg>(a, { message: () => undefined, close: () => undefined });
  const receiver = new Channel<Msg, Msg>(b, { message: (m) => received.push(m), close: () => undefined });
  return { sender, receiver, received, writes, heads };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe("sandbox channel", () => {
  it("delivers plain and checked messages of one turn in order, in one write", async () => {
    const { sender, received, writes } = pair();
    expect(sender.postPlain({ type: "call", n: 1 })).toBe(true);
    expect(sender.postPlain({ type: "call", n: 2 })).toBe(true);
    expect(sender.post({ type: "reply", value: new Uint8Array([1, 2, 3]) })).toBe(true);
    expect(sender.postPlain({ type: "call", n: 3 })).toBe(true);
    await tick();
    await tick();
    expect(writes).toHaveLength(1);
    expect(received.map((m) => m.n ?? m.type)).toEqual([1, 2, "reply", 3]);
    expect(received[2]?.value).toEqual(new Uint8Array([1, 2, 3]));
  });

  it("refuses a message that cannot be serialised and keeps the stream intact", async () => {
    const { sender, received } = pair();
    expect(sender.post({ type: "bad", value: () => 1 })).toBe(false);
    sender.postPlain({ type: "call", n: 1 });
    await tick();
    await tick();
    expect(received).toEqual([{ type: "call", n: 1 }]);
  });

  it("sends plain data as JSON and everything JSON would change as v8, each arriving as posted", async () => {
    const { sender, received, heads } = pair();
    const sparse: unknown[] = [1];
    sparse[2] = 3;
    let deep: unknown = "deep";
    for (let i = 0; i < 20; i++) deep = [deep];
    const values: unknown[] = [
      { text: "hi", n: 1.5, ok: true, none: null, list: ["a", { b: [1, 2] }], lone: "\ud800" },
      new Uint8Array([1, 2, 3]),
      undefined,
      { value: undefined },
      -0,
      Number.NaN,
      Number.POSITIVE_INFINITY,
      new Date(0),
      new Map([["k", 1]]),
      sparse,
      deep,
    ];
    const json = values.map((value) => isPlainData({ type: "reply", value }));
    expect(json).toEqual([true, false, false, false, false, false, false, false, false, false, false]);
    for (const value of values) {
      expect(sender.post({ type: "reply", value })).toBe(true);
      await tick();
      await tick();
    }
    expect(heads.map((h) => h >= 0x8000_0000)).toEqual(json);
    expect(received.map((m) => m.value)).toEqual(values);
    expect(Object.is(received[4]?.value, -0)).toBe(true);
    expect("value" in (received[3]?.value as object)).toBe(true);
  });

  it("refuses both kinds of post once closed", () => {
    const { sender } = pair();
    sender.close();
    expect(sender.post({ type: "x" })).toBe(false);
    expect(sender.postPlain({ type: "x" })).toBe(false);
  });
});

/** A channel on one end of a real Unix socket (readSync needs a descriptor) and the raw other end. */
async function socketPair(onMessage?: (m: Msg, channel: Channel<Msg, Msg>) => void): Promise<{
  channel: Channel<Msg, Msg>;
  fd: number;
  peer: Socket;
  received: Msg[];
  closed: () => boolean;
  done: () => Promise<void>;
}> {
  const dir = mkdtempSync(join(tmpdir(), "airlock-channel-"));
  const path = join(dir, "s");
  let accept: (socket: Socket) => void = () => undefined;
  const accepted = new Promise<Socket>((resolve) => {
    accept = resolve;
  });
  const server: Server = createServer((socket) => accept(socket));
  await new Promise<void>((resolve) => server.listen(path, resolve));
  const client = connect(path);
  await new Promise<void>((resolve) => client.once("connect", () => resolve()));
  const peer = await accepted;
  const received: Msg[] = [];
  let ended = false;
  const channel: Channel<Msg, Msg> = new Channel<Msg, Msg>(client, {
    message: (m) => {
      received.push(m);
      onMessage?.(m, channel);
    },
    close: () => {
      ended = true;
    },
  });
  const fd = (client as unknown as { _handle: { fd: number } })._handle.fd;
  return {
    channel,
    fd,
    peer,
    received,
    closed: () => ended,
    async done() {
      client.destroy();
      peer.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function frame(message: Msg | Msg[]): Buffer {
  const payload = Buffer.from(JSON.stringify(message), "utf8");
  const head = Buffer.allocUnsafe(4);
  head.writeUInt32LE((payload.length | 0x8000_0000) >>> 0, 0);
  return Buffer.concat([head, payload]);
}

/** Until the peer's bytes are in the kernel's buffer (a write completes on the event loop). */
const settle = () => new Promise((resolve) => setTimeout(resolve, 20));

describe("sandbox channel: readSync (the worker waiting for an answer)", () => {
  it("reads what the peer wrote at once, frames in order, and the stream goes on from there", async () => {
    const s = await socketPair();
    try {
      // a small write is in the kernel when write() returns; the event loop has not read it yet
      s.peer.write(Buffer.concat([frame({ type: "a", n: 1 }), frame({ type: "a", n: 2 })]));
      expect(s.peer.writableLength).toBe(0);
      expect(s.channel.readSync(s.fd, 50)).toBe(true);
      expect(s.received.map((m) => m.n)).toEqual([1, 2]);
      s.peer.write(frame({ type: "a", n: 3 }));
      await settle();
      expect(s.received.map((m) => m.n)).toEqual([1, 2, 3]);
    } finally {
      await s.done();
    }
  });

  it("hands out every message once and in order when a handler reads again (a wait inside an entry)", async () => {
    let peer: Socket | null = null;
    let fd = -1;
    const s = await socketPair((m, channel) => {
      if (m.n !== 1 || peer === null) return;
      // the handler of message 1 waits for an answer: what the peer sends now comes after 2 and 3
      peer.write(Buffer.concat([frame({ type: "a", n: 4 }), frame([{ type: "a", n: 5 }])]));
      expect(channel.readSync(fd, 50)).toBe(true);
      expect(s.received.map((r) => r.n)).toEqual([1, 2, 3, 4, 5]);
    });
    peer = s.peer;
    fd = s.fd;
    try {
      // one frame holding a batch of two, then a third frame
      s.peer.write(
        Buffer.concat([
          frame([
            { type: "a", n: 1 },
            { type: "a", n: 2 },
          ]),
          frame({ type: "a", n: 3 }),
        ]),
      );
      expect(s.channel.readSync(s.fd, 50)).toBe(true);
      expect(s.received.map((m) => m.n)).toEqual([1, 2, 3, 4, 5]);
      s.peer.write(frame({ type: "a", n: 6 }));
      await settle();
      expect(s.received.map((m) => m.n)).toEqual([1, 2, 3, 4, 5, 6]);
    } finally {
      await s.done();
    }
  });

  it("keeps an incomplete frame until the rest arrives through the stream", async () => {
    const s = await socketPair();
    try {
      const whole = frame({ type: "split", n: 7, value: "x".repeat(100) });
      s.peer.write(whole.subarray(0, 10));
      expect(s.channel.readSync(s.fd, 50)).toBe(true);
      expect(s.received).toEqual([]);
      s.peer.write(whole.subarray(10));
      await settle();
      expect(s.received).toEqual([{ type: "split", n: 7, value: "x".repeat(100) }]);
    } finally {
      await s.done();
    }
  });

  it("gives up after its budget when nothing comes, and refuses once the peer has gone", async () => {
    const s = await socketPair();
    try {
      const t0 = performance.now();
      expect(s.channel.readSync(s.fd, 5)).toBe(false);
      const waited = performance.now() - t0;
      expect(waited).toBeGreaterThanOrEqual(4);
      s.peer.end();
      await settle();
      expect(s.channel.readSync(s.fd, 5)).toBe(false);
      expect(s.closed()).toBe(true);
      s.channel.close();
      expect(s.channel.readSync(s.fd, 5)).toBe(false);
      expect(s.received).toEqual([]);
    } finally {
      await s.done();
    }
  });
});

describe("SpinGate (when reading for an answer pays)", () => {
  it("stays closed until a wait was measured, and opens on waits within the budget", () => {
    const gate = new SpinGate(0.3);
    expect(gate.open).toBe(false);
    gate.record(0.1);
    expect(gate.open).toBe(true);
    gate.record(0.3); // at the budget: still answered in time
    expect(gate.open).toBe(true);
  });

  it("closes once most recent waits took longer, and one long wait does not close it", () => {
    const gate = new SpinGate(0.3);
    for (let i = 0; i < 8; i++) gate.record(0.1);
    gate.record(40); // one wait stretched (a preempted CPU): the gate stays open
    expect(gate.open).toBe(true);
    gate.record(5);
    gate.record(5);
    gate.record(5);
    expect(gate.open).toBe(false);
    // a run of quick answers opens it again
    gate.record(0.1);
    gate.record(0.1);
    gate.record(0.1);
    expect(gate.open).toBe(true);
  });

  it("forgets what it measured on reset (a new peer)", () => {
    const gate = new SpinGate(0.3);
    gate.record(0.1);
    gate.reset();
    expect(gate.open).toBe(false);
    gate.record(2);
    expect(gate.open).toBe(false);
  });
});
