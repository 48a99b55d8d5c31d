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
} };`;
const plugin = makePlugin({ namespace: "gone", code, tools: ["spin"] });

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
  return { child, channel, stream, next, exited, stderr: () => stderr };
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

  it("exits when the host's end of the channel ends while it is idle", async () => {
    const w = startWorker();
    await w.next("ready");
    w.channel.close();
    expect(await w.exited).toEqual({ code: 0, signal: null });
    expect(w.stderr()).toBe("");
  });
});
