// The worker side of the channel when the host goes away: a worker that writes its result after
// the host's end of the channel was closed (EPIPE) exits cleanly instead of crashing on an
// unhandled error, and a worker whose host side just ends exits too. The test plays the host
// (worker-harness.ts).
import { describe, expect, it } from "vitest";
import { makePlugin } from "../plugin-fixture.ts";
import { contextJson, startWorker } from "./worker-harness.ts";

const code = `globalThis.__airlockPlugin = { tools: {
  spin: async () => { const end = Date.now() + 300; while (Date.now() < end) {} return "done"; },
  echo: async (input) => input.text,
} };`;
const plugin = makePlugin({ namespace: "gone", code, tools: ["spin", "echo"] });

describe("a sandbox worker whose host went away", () => {
  it("exits cleanly when its result meets a closed channel (EPIPE), with no unhandled error", async () => {
    const w = startWorker();
    await w.next("ready");
    w.channel.post({ type: "load", rid: 1, plugin });
    expect(await w.next("reply")).toEqual({ type: "reply", rid: 1, ok: true });
    w.channel.post({
      type: "call",
      id: 1,
      call: {
        pluginKey: plugin.key,
        tool: "spin",
        inputJson: "{}",
        agent: "a",
        contextJson: contextJson("gone:spin"),
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
    const context = contextJson("gone:echo");
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
