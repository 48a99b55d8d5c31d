// The room plugin's harness tools, run in a real sandbox: the room lives in ctx.state, per
// conversation, and survives between calls.
import { resolve } from "node:path";
import { createTestHarness, type TestHarness } from "@airlock/sdk/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const pluginDir = resolve(import.meta.dirname, "..");
const jsonOf = (r: { content: Array<{ type: string; text?: string }> }): Record<string, unknown> =>
  JSON.parse(r.content.map((p) => p.text ?? "").join("")) as Record<string, unknown>;

describe("room harness tools", () => {
  let h: TestHarness;
  beforeAll(async () => {
    h = await createTestHarness();
  });
  afterAll(async () => {
    await h.close();
  });

  it("loads as harness tools with snake_case names", async () => {
    const plugin = await h.load(pluginDir);
    expect(plugin.tools.sort()).toEqual([
      "room:list_open_events",
      "room:mark_events_completed",
      "room:post_event",
    ]);
  });

  it("posts events, completes some by id and lists what is still open", async () => {
    const opts = { conversationId: "room-a" };
    expect(jsonOf(await h.call("room:post_event", { text: "build failed" }, opts))).toEqual({ id: 1 });
    expect(jsonOf(await h.call("room:post_event", { text: "deploy done" }, opts))).toEqual({ id: 2 });
    const done = jsonOf(await h.call("room:mark_events_completed", { ids: [1, 9] }, opts));
    expect(done).toEqual({ unknown: [9], open: [2] });
    const open = jsonOf(await h.call("room:list_open_events", {}, opts)) as { events: Array<{ id: number }> };
    expect(open.events.map((e) => e.id)).toEqual([2]);
    expect(await h.auditActions()).toContain("room.completed");
  });

  it("keeps each conversation's room separate", async () => {
    const open = jsonOf(await h.call("room:list_open_events", {}, { conversationId: "room-b" }));
    expect(open).toEqual({ events: [] });
  });
});
