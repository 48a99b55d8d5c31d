// The `room` plugin: harness tools for a supervisor's room cycle. They bypass per-agent
// enablement and are injected only into runs that include the "room" harness group.
// Contract: the room's event queue lives in ctx.state (per conversation, per plugin), so
// each conversation is its own room; ids are assigned in order and never reused.
import { definePlugin, defineTool } from "@airlock/sdk";
import { z } from "zod";

interface RoomEvent {
  id: number;
  text: string;
  done: boolean;
}

interface Room {
  nextId: number;
  events: RoomEvent[];
}

async function loadRoom(state: { get(key: string): Promise<unknown> }): Promise<Room> {
  const room = (await state.get("room")) as Room | undefined | null;
  return room ?? { nextId: 1, events: [] };
}

export const postEvent = defineTool({
  name: "post_event",
  description: "Post an event to the room's queue for the supervisor to handle.",
  category: "harness",
  harness: "room",
  uses: { state: "write" },
  parameters: z.object({ text: z.string().min(1).max(2000).describe("What happened.") }),
  execute: async (input, ctx) => {
    const room = await loadRoom(ctx.state);
    const event = { id: room.nextId, text: input.text, done: false };
    await ctx.state.set("room", { nextId: room.nextId + 1, events: [...room.events, event] });
    return { success: true, result: { id: event.id } };
  },
});

export const listOpenEvents = defineTool({
  name: "list_open_events",
  description: "List the room's events that are not completed yet.",
  category: "harness",
  harness: "room",
  annotations: { readOnlyHint: true },
  uses: { state: "read" },
  parameters: z.object({}),
  execute: async (_input, ctx) => {
    const room = await loadRoom(ctx.state);
    return { success: true, result: { events: room.events.filter((e) => !e.done) } };
  },
});

export const markEventsCompleted = defineTool({
  name: "mark_events_completed",
  description: "Mark room events completed by id; answers which ids were unknown and what is still open.",
  category: "harness",
  harness: "room",
  uses: { state: "write" },
  parameters: z.object({ ids: z.array(z.number().int()).min(1).describe("Event ids to complete.") }),
  execute: async (input, ctx) => {
    const room = await loadRoom(ctx.state);
    const known = new Set(room.events.map((e) => e.id));
    const unknown = input.ids.filter((id) => !known.has(id));
    const done = new Set(input.ids);
    const events = room.events.map((e) => (done.has(e.id) ? { ...e, done: true } : e));
    await ctx.state.set("room", { nextId: room.nextId, events });
    await ctx.audit.log({
      action: "room.completed",
      details: { ids: input.ids.filter((id) => known.has(id)) },
    });
    return { success: true, result: { unknown, open: events.filter((e) => !e.done).map((e) => e.id) } };
  },
});

export default definePlugin({
  namespace: "room",
  version: "1.0.0",
  engine: "^1.0.0",
  description: "Harness tools for a supervisor's room cycle: post events, list open ones, complete them.",
  tools: [postEvent, listOpenEvents, markEventsCompleted],
});
