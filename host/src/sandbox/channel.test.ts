// The framed channel over a real duplex pair: messages arrive whole and in the order posted,
// plain messages of one turn share one frame (one write for the turn), a message that cannot be
// serialised is refused by post without disturbing the stream, and a closed channel refuses both.
import { duplexPair } from "node:stream";
import { describe, expect, it } from "vitest";
import { Channel } from "./channel.ts";

type Msg = { type: string; n?: number; value?: unknown };

function pair() {
  const [a, b] = duplexPair();
  const received: Msg[] = [];
  const writes: number[] = [];
  const write = a.write.bind(a);
  a.write = ((chunk: Buffer, ...rest: never[]) => {
    writes.push(chunk.length);
    return write(chunk, ...rest);
  }) as typeof a.write;
  const sender = new Channel<Msg, Msg>(a, { message: () => undefined, close: () => undefined });
  const receiver = new Channel<Msg, Msg>(b, { message: (m) => received.push(m), close: () => undefined });
  return { sender, receiver, received, writes };
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

  it("refuses both kinds of post once closed", () => {
    const { sender } = pair();
    sender.close();
    expect(sender.post({ type: "x" })).toBe(false);
    expect(sender.postPlain({ type: "x" })).toBe(false);
  });
});
