// Conformance tests of the knowledge half of the Store: documents per agent, writer filter,
// full-text search with snippet and score, reindexing, deletion by id and by writer.
// Registered by storeConformance (./conformance.ts).
import { expect, it } from "vitest";
import type { KnowledgeDocRecord, Store } from "./types.ts";

export function doc(agent: string, id: string, content: string, writer = "plugin:notes"): KnowledgeDocRecord {
  const at = new Date().toISOString();
  return {
    id,
    agent,
    filename: `${id}.md`,
    content,
    mime: "text/markdown",
    writer,
    createdAt: at,
    updatedAt: at,
  };
}

export function knowledgeConformance(s: () => Store): void {
  it("round-trips a document and replaces it by id, keeping its creation time", async () => {
    const d = { ...doc("a", "d1", "first version"), createdAt: "2026-01-01T00:00:00.000Z" };
    await s().putKnowledgeDoc(d);
    expect(await s().getKnowledgeDoc("a", "d1")).toEqual(d);
    await s().putKnowledgeDoc({ ...d, content: "second version", updatedAt: "2026-01-02T00:00:00.000Z" });
    expect(await s().getKnowledgeDoc("a", "d1")).toMatchObject({
      content: "second version",
      createdAt: "2026-01-01T00:00:00.000Z",
    });
    expect(await s().getKnowledgeDoc("b", "d1")).toBeNull();
    expect(await s().countKnowledgeDocs("a")).toBe(1);
  });

  it("lists an agent's documents, optionally only one writer's", async () => {
    await s().putKnowledgeDoc(doc("a", "d1", "x", "plugin:one"));
    await s().putKnowledgeDoc(doc("a", "d2", "y", "plugin:two"));
    await s().putKnowledgeDoc(doc("b", "d3", "z", "plugin:one"));
    expect((await s().listKnowledgeDocs("a", { limit: 10 })).map((d) => d.id).sort()).toEqual(["d1", "d2"]);
    expect((await s().listKnowledgeDocs("a", { writer: "plugin:one", limit: 10 })).map((d) => d.id)).toEqual([
      "d1",
    ]);
    expect(await s().listKnowledgeDocs("a", { limit: 1 })).toHaveLength(1);
  });

  it("searches full text within one agent, with a snippet and a positive score, best first", async () => {
    await s().putKnowledgeDoc(doc("a", "cats", "Cats are small carnivorous mammals. Cats purr."));
    await s().putKnowledgeDoc(doc("a", "dogs", "Dogs are loyal companions; some dogs chase cats."));
    await s().putKnowledgeDoc(doc("b", "other", "Cats live here too."));
    const hits = await s().searchKnowledge("a", "cats", 10);
    expect(hits.map((h) => h.id)).toEqual(["cats", "dogs"]);
    expect(hits[0]!.filename).toBe("cats.md");
    expect(hits[0]!.snippet.toLowerCase()).toContain("cats");
    expect(hits[0]!.score).toBeGreaterThan(0);
    expect(hits[0]!.score).toBeGreaterThanOrEqual(hits[1]!.score);
    expect((await s().searchKnowledge("a", "loyal companions", 10)).map((h) => h.id)).toEqual(["dogs"]);
    expect(await s().searchKnowledge("a", "giraffe", 10)).toEqual([]);
    expect(await s().searchKnowledge("a", "cats", 1)).toHaveLength(1);
  });

  it("treats search syntax in a query as plain words", async () => {
    await s().putKnowledgeDoc(doc("a", "q", "quarterly report for acme"));
    for (const q of [
      '"unbalanced',
      "report OR",
      "NEAR(a b)",
      "acme*",
      "col:report",
      "' ; DROP TABLE x; --",
      "&|!():*",
    ]) {
      await expect(s().searchKnowledge("a", q, 10)).resolves.toBeInstanceOf(Array);
    }
    expect((await s().searchKnowledge("a", "report:", 10)).map((h) => h.id)).toEqual(["q"]);
    expect(await s().searchKnowledge("a", "   ", 10)).toEqual([]);
  });

  it("follows content changes in search after a replace, and reindexes on demand", async () => {
    await s().putKnowledgeDoc(doc("a", "d", "apples"));
    await s().putKnowledgeDoc(doc("a", "d", "oranges"));
    expect(await s().searchKnowledge("a", "apples", 10)).toEqual([]);
    expect((await s().searchKnowledge("a", "oranges", 10)).map((h) => h.id)).toEqual(["d"]);
    expect(await s().reindexKnowledgeDoc("a", "d")).toBe(true);
    expect(await s().reindexKnowledgeDoc("a", "missing")).toBe(false);
    expect((await s().searchKnowledge("a", "oranges", 10)).map((h) => h.id)).toEqual(["d"]);
  });

  it("deletes a document and drops it from search", async () => {
    await s().putKnowledgeDoc(doc("a", "d", "bananas"));
    expect(await s().deleteKnowledgeDoc("b", "d")).toBe(false);
    expect(await s().deleteKnowledgeDoc("a", "d")).toBe(true);
    expect(await s().deleteKnowledgeDoc("a", "d")).toBe(false);
    expect(await s().searchKnowledge("a", "bananas", 10)).toEqual([]);
    expect(await s().countKnowledgeDocs("a")).toBe(0);
  });

  it("deletes every document of one writer across agents", async () => {
    await s().putKnowledgeDoc(doc("a", "d1", "kiwis", "plugin:gone"));
    await s().putKnowledgeDoc(doc("b", "d2", "kiwis", "plugin:gone"));
    await s().putKnowledgeDoc(doc("a", "d3", "kiwis", "plugin:kept"));
    expect(await s().deleteKnowledgeByWriter("plugin:gone")).toBe(2);
    expect((await s().searchKnowledge("a", "kiwis", 10)).map((h) => h.id)).toEqual(["d3"]);
    expect(await s().searchKnowledge("b", "kiwis", 10)).toEqual([]);
  });

  it("creates a document only when its id is new and the agent is under the count cap", async () => {
    expect(await s().createKnowledgeDoc(doc("a", "d1", "x"), 2)).toBe("created");
    expect(await s().createKnowledgeDoc(doc("a", "d1", "y"), 2)).toBe("exists");
    expect((await s().getKnowledgeDoc("a", "d1"))?.content).toBe("x");
    expect(await s().createKnowledgeDoc(doc("a", "d2", "x"), 2)).toBe("created");
    expect(await s().createKnowledgeDoc(doc("a", "d3", "x"), 2)).toBe("limit_reached");
    expect(await s().createKnowledgeDoc(doc("b", "d3", "x"), 2)).toBe("created");
  });

  it("never overshoots the count cap when creations race", async () => {
    const out = await Promise.all(
      Array.from({ length: 10 }, (_, i) => s().createKnowledgeDoc(doc("a", `r${i}`, "x"), 3)),
    );
    expect(out.filter((o) => o === "created")).toHaveLength(3);
    expect(await s().countKnowledgeDocs("a")).toBe(3);
  });

  it("appends atomically, checking existence, writer and size, and search follows", async () => {
    await s().putKnowledgeDoc(doc("a", "d", "alpha", "plugin:one"));
    const opts = { maxBytes: 20, updatedAt: "2030-01-01T00:00:00.000Z" };
    expect(await s().appendKnowledgeDoc("a", "nope", "x", opts)).toBe("not_found");
    expect(await s().appendKnowledgeDoc("a", "d", " beta", { ...opts, writer: "plugin:two" })).toBe(
      "not_owned",
    );
    expect(await s().appendKnowledgeDoc("a", "d", " beta", { ...opts, writer: "plugin:one" })).toBe(
      "appended",
    );
    expect(await s().appendKnowledgeDoc("a", "d", " gamma delta epsilon", opts)).toBe("too_large");
    expect(await s().getKnowledgeDoc("a", "d")).toMatchObject({
      content: "alpha beta",
      updatedAt: opts.updatedAt,
    });
    expect((await s().searchKnowledge("a", "beta", 10)).map((h) => h.id)).toEqual(["d"]);
  });

  it("loses no append when appends race", async () => {
    await s().putKnowledgeDoc(doc("a", "d", "start"));
    const parts = Array.from({ length: 12 }, (_, i) => ` p${i}`);
    const opts = { maxBytes: 10_000, updatedAt: new Date().toISOString() };
    await Promise.all(parts.map((p) => s().appendKnowledgeDoc("a", "d", p, opts)));
    const content = (await s().getKnowledgeDoc("a", "d"))!.content;
    for (const p of parts) expect(content).toContain(p);
    expect(content.length).toBe("start".length + parts.join("").length);
  });
}
