// The worker side of the channel when the host goes away: a worker that writes its result after
// the host's end of the channel was closed (EPIPE) exits cleanly instead of crashing on an
// unhandled error, and a worker whose host side just ends exits too. The test plays the host
// with the same spawn and channel the WorkerSlot uses.
import type { Duplex } from "node:stream";
import { describe, expect, it } from "vitest";
import { Channel } from "./channel.ts";
import { makePlugin } from "./plugin-fixture.ts";
import type { FromWorker, ToWorker } from "./worker-protocol.ts";
import { CHANNEL_FD } from "./worker-protocol.ts";
import { spawnWorker } from "./worker-slot.ts";

const code = `globalThis.__airlockPlugin = { tools: {
  spin: async () => { const end = Date.now() + 300; while (Date.now() < end) {} return "done"; },
  echo: async (input) => input.text,
} };`;
const plugin = makePlugin({ namespace: "gone", code, tools: ["spin", "echo"] });

function startWorker() {
  const child = spawnWorker({});
  let stderr = "";
  child.stderr?.on("data", (d: Buffer) => {
    stderr += d.toString();
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on("exit", (code, signal) => resolve({ code, signal })),
  );
  const received: FromWorker[] = [];
  const waiters: Array<() => void> = [];
  const stream = child.stdio[CHANNEL_FD] as Duplex;
  const channel = new Channel<ToWorker, FromWorker>(stream, {
    message: (m) => {
      received.push(m);
      for (const w of waiters.splice(0)) w();
    },
    close: () => undefined,
  });
  const next = async (type: FromWorker["type"]) => {
    for (;;) {
      const found = received.find((m) => m.type === type);
      if (found) return found;
      await new Promise<void>((resolve) => waiters.push(resolve));
    }
  };
  /** The result of call `id` (removed from what was received). */
  const result = async (id: number) => {
    for (;;) {
      const at = received.findIndex((m) => m.type === "result" && m.id === id);
      if (at >= 0) return received.splice(at, 1)[0]!;
      await new Promise<void>((resolve) => waiters.push(resolve));
    }
  };
  return { child, channel, stream, next, result, exited, stderr: () => stderr };
}

describe("a sandbox worker whose host went away", () => {
  it("exits cleanly when its result meets a closed channel (EPIPE), with no unhandled error", async () => {
    const w = startWorker();
    await w.next("ready");
    w.channel.post({ type: "load", rid: 1, plugin });
    expect(await w.next("reply")).toEqual({ type: "reply", rid: 1, ok: true });
    const context = {
      instanceId: "a",
      conversationId: "c",
      toolId: "gone:spin",
      conversation: [],
      attachments: [],
      knowledgeLevel: null,
    };
    w.channel.post({
      type: "call",
      id: 1,
      call: {
        pluginKey: plugin.key,
        tool: "spin",
        inputJson: "{}",
        agent: "a",
        contextJson: JSON.stringify(context),
      },
    });
    w.channel.flush();
    // the worker is inside the 300 ms tool now; kill the host side of the channel under it
    await new Promise((resolve) => setTimeout(resolve, 50));
    w.stream.destroy();
    const exit = await w.exited;
    expect(exit).toEqual({ code: 0, signal: null });
    expect(w.stderr()).not.toMatch(/EPIPE|Unhandled|Error/);
  });

  it("exits cleanly when the host goes away right after a run of lone calls (it reads for the next)", async () => {
    const w = startWorker();
    await w.next("ready");
    w.channel.post({ type: "load", rid: 1, plugin });
    expect(await w.next("reply")).toEqual({ type: "reply", rid: 1, ok: true });
    const context = JSON.stringify({
      instanceId: "a",
      conversationId: "c",
      toolId: "gone:echo",
      conversation: [],
      attachments: [],
      knowledgeLevel: null,
    });
    // each call sent as soon as the last result arrived, as the host's only call (solo)
    for (let id = 1; id <= 100; id++) {
      const inputJson = JSON.stringify({ text: `m${id}` });
      w.channel.post({
        type: "call",
        id,
        solo: true,
        call: { pluginKey: plugin.key, tool: "echo", inputJson, agent: "a", contextJson: context },
      });
      w.channel.flush();
      const r = await w.result(id);
      expect(r).toMatchObject({ type: "result", id, ok: true });
      expect(JSON.parse((r as { json: string }).json)).toBe(`m${id}`);
    }
    w.stream.destroy(); // while the worker may be reading for call 101
    expect(await w.exited).toEqual({ code: 0, signal: null });
    expect(w.stderr()).toBe("");
  });

  it("exits when the host's end of the channel ends while it is idle", async () => {
    const w = startWorker();
    await w.next("ready");
    w.channel.close();
    expect(await w.exited).toEqual({ code: 0, signal: null });
    expect(w.stderr()).toBe("");
  });
});
