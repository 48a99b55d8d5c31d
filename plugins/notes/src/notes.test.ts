// The notes plugin, run in a real sandbox against a real SQLite knowledge base through the
// SDK's test harness, at each knowledge level an operator can grant.
import { resolve } from "node:path";
import { createTestHarness, type TestHarness, testTool } from "@airlock/sdk/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const pluginDir = resolve(import.meta.dirname, "..");
const textOf = (r: { content: Array<{ type: string; text?: string }> }): string =>
  r.content.map((p) => p.text ?? "").join("");
const jsonOf = (r: { content: Array<{ type: string; text?: string }> }): Record<string, unknown> =>
  JSON.parse(textOf(r)) as Record<string, unknown>;

describe("notes plugin with write access", () => {
  let h: TestHarness;
  let operatorDoc: string;

  beforeAll(async () => {
    h = await createTestHarness({ knowledgeLevel: "write" });
    await h.load(pluginDir);
    operatorDoc = await h.seedKnowledge({
      filename: "handbook.md",
      content: "The vacation policy is generous.",
    });
  });
  afterAll(async () => {
    await h.close();
  });

  it("writes a note, finds it by search and reads it back", async () => {
    const written = await h.call("notes:writeNote", {
      id: null,
      title: "Standup 3 March",
      content: "Decided to ship the zebra release on Friday.",
      mode: null,
    });
    expect(written.isError).toBeUndefined();
    const { id, action } = jsonOf(written) as { id: string; action: string };
    expect(action).toBe("created");

    const found = jsonOf(await h.call("notes:searchNotes", { query: "zebra", limit: null })) as {
      hits: Array<{ id: string }>;
    };
    expect(found.hits.map((x) => x.id)).toContain(id);

    const doc = jsonOf(await h.call("notes:readNote", { id })) as {
      content: string;
      writer: string;
      filename: string;
    };
    expect(doc.content).toBe("Decided to ship the zebra release on Friday.");
    expect(doc.writer).toBe("plugin:notes");
    expect(doc.filename).toBe("standup-3-march.md");
  });

  it("appends to its own note", async () => {
    const { id } = jsonOf(
      await h.call("notes:writeNote", { id: null, title: "todo", content: "- milk", mode: null }),
    ) as { id: string };
    const appended = await h.call("notes:writeNote", {
      id,
      title: "todo",
      content: "- eggs",
      mode: "append",
    });
    expect(jsonOf(appended)).toEqual({ id, action: "appended" });
    const doc = jsonOf(await h.call("notes:readNote", { id })) as { content: string };
    expect(doc.content).toBe("- milk\n- eggs");
  });

  it("lists only its own notes unless asked for all documents", async () => {
    const mine = jsonOf(await h.call("notes:listNotes", { all: null, limit: null })) as {
      notes: Array<{ id: string }>;
    };
    expect(mine.notes.map((n) => n.id)).not.toContain(operatorDoc);
    expect(mine.notes.length).toBeGreaterThanOrEqual(2);
    const all = jsonOf(await h.call("notes:listNotes", { all: true, limit: null })) as {
      notes: Array<{ id: string }>;
    };
    expect(all.notes.map((n) => n.id)).toContain(operatorDoc);
  });

  it("refuses to replace a document it did not write and tells the model why", async () => {
    const r = await h.call("notes:writeNote", {
      id: operatorDoc,
      title: "x",
      content: "hijacked",
      mode: null,
    });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(/not written by the notes plugin/);
    const doc = jsonOf(await h.call("notes:readNote", { id: operatorDoc })) as { content: string };
    expect(doc.content).toBe("The vacation policy is generous.");
  });

  it("tells the model when a note id does not exist", async () => {
    const r = await h.call("notes:readNote", { id: "no-such-note" });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(/No note has id/);
  });
});

describe("notes plugin at other levels", () => {
  it("reads but cannot write at the default read level", async () => {
    const r = await testTool({
      pluginDir,
      tool: "writeNote",
      input: { id: null, title: "t", content: "c", mode: null },
    });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(/does not allow writing/);
  });

  it("answers that there is no knowledge base when the agent grants none", async () => {
    const r = await testTool({
      pluginDir,
      tool: "searchNotes",
      input: { query: "x", limit: null },
      knowledgeLevel: null,
    });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(/no knowledge base access/);
  });

  it("rejects input that does not match the schema before the tool runs", async () => {
    const r = await testTool({ pluginDir, tool: "searchNotes", input: { query: "" } });
    expect(r.isError).toBe(true);
    expect(r.errorCode).toMatch(/^AIRLOCK_/);
  });
});
