// The framed channel over a real duplex pair: messages arrive whole and in the order posted,
// plain messages of one turn share one frame (one write for the turn), a message that cannot be
// serialised is refused by post without disturbing the stream, and a closed channel refuses both;
// a message travels as JSON only when JSON gives back exactly what was posted.
import { duplexPair } from "node:stream";
import { describe, expect, it } from "vitest";
import { Channel, isPlainData } from "./channel.ts";

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
