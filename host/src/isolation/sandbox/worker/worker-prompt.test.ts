// A worker answers the ctx calls of its one running call inside the entry that asked them
// (worker-entry.ts, ask): the values, refusals and bytes the host answers reach plugin code in
// order; what the host sends meanwhile ends the wait and is handled once that entry is over; and
// a call that keeps asking still ends at its cancel and still runs its timers (an entry stops
// taking answers within itself once a message is waiting, or after PROMPT_ENTRY_MS). The test
// plays the host (worker-harness.ts) and answers each ctx call at once unless it says otherwise.
import { describe, expect, it } from "vitest";
import { makePlugin } from "../plugin-fixture.ts";
import type { Channel } from "./channel.ts";
import { contextJson, startWorker } from "./worker-harness.ts";
import type { FromWorker, ToWorker } from "./worker-protocol.ts";

const code = `globalThis.__airlockPlugin = { tools: {
  reads: async (input, ctx) => {
    const out = [];
    for (let i = 0; i < input.n; i++) out.push(await ctx.state.get("k" + i));
    try { await ctx.state.get("deny"); } catch (e) { out.push(e.code + ": " + e.message); }
    out.push(Array.from(await ctx.artifacts.take("bytes")));
    return out;
  },
  two: async (input, ctx) => [await ctx.state.get("a"), await ctx.state.get("b")],
  loop: async (input, ctx) => { for (;;) { try { await ctx.state.get("k"); } catch {} } },
  untilTimer: async (input, ctx) => {
    let fired = false;
    setTimeout(() => { fired = true; }, 0);
    let n = 0;
    while (!fired) { await ctx.state.get("k"); n++; }
    return n;
  },
  echo: async (input) => input.text,
} };`;
const plugin = makePlugin({
  namespace: "prompt",
  code,
  tools: ["reads", "two", "loop", "untilTimer", "echo"],
  // this host answers every ctx call (no cap of its own): the worker's cap must not end the loops
  limits: { cpuMs: 300, wallMs: 10_000, capabilityCalls: 1_000_000 },
});

type Ask = Extract<FromWorker, { type: "bridge" }>;

/** Answers a ctx call now, in its own write: as a host serving a lone call does. */
function reply(channel: Channel<ToWorker, FromWorker>, ask: Ask): void {
  const key = ask.args[0];
  if (key === "deny")
    channel.post({
      type: "bridge-reply",
      bid: ask.bid,
      ok: false,
      error: { code: "AIRLOCK_STATE_DENIED", message: "not this key" },
    });
  else if (ask.capability === "artifacts")
    channel.post({ type: "bridge-reply", bid: ask.bid, ok: true, value: new Uint8Array([1, 2, 255]) });
  else channel.post({ type: "bridge-reply", bid: ask.bid, ok: true, value: { key, n: 1 } });
  channel.flush();
}

function call(id: number, tool: string, input: unknown): ToWorker {
  return {
    type: "call",
    id,
    solo: true,
    call: {
      pluginKey: plugin.key,
      tool,
      inputJson: JSON.stringify(input),
      agent: "a",
      contextJson: contextJson(`prompt:${tool}`),
    },
  };
}

async function loaded(answer: Parameters<typeof startWorker>[0], options: { promptEntryMs?: number } = {}) {
  // this test's host answers on its event loop, in a process running other suites: the worker is
  // told to wait for answers long enough that it always takes them inside the entry
  const w = startWorker(answer, { replyWaitMs: 2_000, ...options });
  await w.next("ready");
  w.channel.post({ type: "load", rid: 1, plugin });
  expect(await w.next("reply")).toEqual({ type: "reply", rid: 1, ok: true });
  return w;
}

describe("ctx calls answered inside the entry that asked them", () => {
  it("hands plugin code each answer in order: values, a refusal with its code, and bytes", async () => {
    const w = await loaded((m, channel) => {
      if (m.type === "bridge") reply(channel, m);
    });
    for (let id = 1; id <= 20; id++) {
      w.channel.post(call(id, "reads", { n: 30 }));
      w.channel.flush();
      const r = await w.result(id);
      expect(r).toMatchObject({ type: "result", id, ok: true });
      const out = JSON.parse((r as { json: string }).json) as unknown[];
      expect(out.slice(0, 30)).toEqual(Array.from({ length: 30 }, (_, i) => ({ key: `k${i}`, n: 1 })));
      expect(out.slice(30)).toEqual(["AIRLOCK_STATE_DENIED: not this key", [1, 2, 255]]);
    }
    w.channel.close();
    expect(await w.exited).toEqual({ code: 0, signal: null });
    expect(w.stderr()).toBe("");
  });

  it("answers a ping read during the wait at once, ahead of the entry's next ctx call", async () => {
    // the entry takes answers within itself for as long as this host may take to give them (an
    // answer later than PROMPT_ENTRY_MS into the entry would send the next ask the event loop's way)
    const w = await loaded(
      (m, channel) => {
        if (m.type !== "bridge") return;
        // the ping travels in the same write as the answer, ahead of it (in the last call: the
        // first ones warm the path up)
        if (m.id === 10 && m.args[0] === "a") channel.post({ type: "ping", n: 7 });
        reply(channel, m);
      },
      { promptEntryMs: 2_000 },
    );
    for (let id = 1; id <= 10; id++) {
      w.channel.post(call(id, "two", {}));
      w.channel.flush();
      const r = await w.result(id);
      expect(JSON.parse((r as { json: string }).json)).toEqual([
        { key: "a", n: 1 },
        { key: "b", n: 1 },
      ]);
    }
    const asksB = w.received.findIndex((m) => m.type === "bridge" && m.id === 10 && m.args[0] === "b");
    const pong = w.received.findIndex((m) => m.type === "pong");
    expect(asksB).toBeGreaterThan(0);
    // the supervisor's ping never waits for plugin code: answered the moment it is read
    expect(pong).toBeGreaterThan(-1);
    expect(pong).toBeLessThan(asksB);
    expect(w.received[pong]).toEqual({ type: "pong", n: 7 });
    w.channel.close();
    expect(await w.exited).toEqual({ code: 0, signal: null });
  });

  it("stops waiting for an answer when another call comes, and runs that call first", async () => {
    let answered = false;
    let echoed: Promise<unknown> | undefined;
    const w = await loaded((m, channel) => {
      if (m.type !== "bridge") return;
      if (m.id === 10 && m.args[0] === "a") {
        // another call now; this answer only once that call's result is in (or after 5 s, so a
        // worker that kept reading for it fails the assertion below rather than the test's time)
        channel.post(call(11, "echo", { text: "meanwhile" }));
        channel.flush();
        const late = () => {
          if (answered) return;
          answered = true;
          reply(channel, m);
        };
        const timer = setTimeout(late, 5_000);
        void echoed?.then(() => {
          clearTimeout(timer);
          setImmediate(late); // after the test has read `answered` (its continuation is a microtask)
        });
        return;
      }
      reply(channel, m);
    });
    echoed = w.result(11);
    for (let id = 1; id <= 10; id++) {
      w.channel.post(call(id, "two", {}));
      w.channel.flush();
      if (id < 10) await w.result(id); // warm-up (see above)
    }
    const echo = await echoed;
    // a worker still reading for the answer would have run the call only after it
    expect(answered).toBe(false);
    expect(JSON.parse((echo as { json: string }).json)).toBe("meanwhile");
    const r = await w.result(10);
    expect(answered).toBe(true);
    expect(JSON.parse((r as { json: string }).json)).toEqual([
      { key: "a", n: 1 },
      { key: "b", n: 1 },
    ]);
    w.channel.close();
    expect(await w.exited).toEqual({ code: 0, signal: null });
  });

  it("runs a call's due timer while the call keeps asking (the entry lets go after PROMPT_ENTRY_MS)", async () => {
    const w = await loaded((m, channel) => {
      if (m.type === "bridge") reply(channel, m);
    });
    for (let id = 1; id <= 3; id++) {
      w.channel.post(call(id, "untilTimer", {}));
      w.channel.flush();
      // a timer runs between entries: were the loop's answers all taken inside one entry, the
      // timer would never run and the call would end at its CPU limit instead
      const r = await w.result(id);
      expect(r).toMatchObject({ type: "result", id, ok: true });
      expect(JSON.parse((r as { json: string }).json)).toBeGreaterThan(0);
    }
    w.channel.close();
    expect(await w.exited).toEqual({ code: 0, signal: null });
  });

  it("ends a call that keeps asking when its cancel comes, with AIRLOCK_SANDBOX_TIMEOUT, and serves the next call", async () => {
    let asked = 0;
    const w = await loaded((m, channel) => {
      if (m.type !== "bridge" || m.id !== 1) return;
      asked++;
      if (asked === 200) channel.post({ type: "cancel", id: 1 });
      reply(channel, m);
    });
    w.channel.post(call(1, "loop", {}));
    w.channel.flush();
    const r = await w.result(1);
    // the cancel's code, not the CPU limit the loop would reach if the entry never let it in
    expect(r).toMatchObject({
      type: "result",
      id: 1,
      ok: false,
      error: { code: "AIRLOCK_SANDBOX_TIMEOUT", details: { reason: "signal" } },
    });
    w.channel.post(call(2, "echo", { text: "still here" }));
    w.channel.flush();
    const next = await w.result(2);
    expect(next).toMatchObject({ type: "result", id: 2, ok: true });
    expect(JSON.parse((next as { json: string }).json)).toBe("still here");
    w.channel.close();
    expect(await w.exited).toEqual({ code: 0, signal: null });
  });
});
