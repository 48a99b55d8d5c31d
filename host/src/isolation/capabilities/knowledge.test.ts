import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { KnowledgeLevel } from "@airlock/sdk";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openStore } from "../../state/store/index.ts";
import type { Store } from "../../state/store/types.ts";
import type { CallGrant } from "../bridge/types.ts";
import { createKnowledgeCapability } from "./knowledge.ts";

const grant = (ns: string, level: KnowledgeLevel | null | "bogus", agent = "a") =>
  ({
    agent,
    conversationId: "c",
    namespace: ns,
    tool: "t",
    toolId: `${ns}:t`,
    knowledgeLevel: level,
  }) as unknown as CallGrant;

let dir: string;
let store: Store;
beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), "airlock-knowledge-"));
  store = await openStore({ kind: "sqlite", dataDir: dir });
});
afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const cap = (limits = {}) => createKnowledgeCapability({ store, limits });
const call = (m: string, g: CallGrant, ...args: unknown[]) => cap().methods[m]!(g, args);

describe("knowledge capability", () => {
  it("writes as the plugin of the calling tool, whatever the document claims", async () => {
    const r = (await call("write", grant("notes", "write"), {
      filename: "a.md",
      content: "alpha",
      writer: "plugin:other",
    })) as { ok: true; id: string };
    expect(r.ok).toBe(true);
    expect(await call("get", grant("x", "read"), r.id)).toMatchObject({
      writer: "plugin:notes",
      content: "alpha",
    });
  });

  it("refuses every mutation at the read level with not_granted and audits it as denied", async () => {
    const g = grant("notes", "read");
    expect(await call("write", g, { filename: "a", content: "b" })).toEqual({
      ok: false,
      reason: "not_granted",
    });
    expect(await call("delete", g, "x")).toEqual({ ok: false, reason: "not_granted" });
    const [entry] = await store.queryAudit({ agent: "a" });
    expect(entry).toMatchObject({
      action: "knowledge.delete",
      allowed: false,
      error: "not_granted",
      plugin: "notes",
    });
  });

  it("refuses a write to a document another writer wrote with not_owned, and manage may change it", async () => {
    const w = (await call("write", grant("one", "write"), { id: "doc", filename: "d", content: "v1" })) as {
      id: string;
    };
    expect(await call("write", grant("two", "write"), { id: w.id, filename: "d", content: "v2" })).toEqual({
      ok: false,
      reason: "not_owned",
    });
    expect(await call("append", grant("two", "write"), "doc", "!")).toEqual({
      ok: false,
      reason: "not_owned",
    });
    expect(await call("delete", grant("two", "write"), "doc")).toEqual({ ok: false, reason: "not_owned" });
    expect(await call("reingest", grant("two", "write"), "doc")).toEqual({ ok: false, reason: "not_owned" });
    expect(await call("write", grant("two", "manage"), { id: "doc", filename: "d", content: "v3" })).toEqual({
      ok: true,
      id: "doc",
    });
    expect(await call("get", grant("one", "read"), "doc")).toMatchObject({
      content: "v3",
      writer: "plugin:one",
    });
    expect(await call("delete", grant("two", "manage"), "doc")).toEqual({ ok: true, id: "doc" });
    expect(await call("get", grant("one", "read"), "doc")).toBeNull();
  });

  it("appends to own documents, searches and lists with a mine-only filter", async () => {
    await call("write", grant("one", "write"), { id: "d1", filename: "d1.md", content: "zebra stripes" });
    await call("write", grant("two", "write"), { id: "d2", filename: "d2.md", content: "lion mane" });
    expect(await call("append", grant("one", "write"), "d1", " and hooves")).toEqual({ ok: true, id: "d1" });
    const hits = (await call("search", grant("x", "read"), "hooves")) as Array<{ id: string }>;
    expect(hits.map((h) => h.id)).toEqual(["d1"]);
    const mine = (await call("list", grant("two", "read"), { mine: true })) as Array<{
      id: string;
      size: number;
    }>;
    expect(mine).toEqual([expect.objectContaining({ id: "d2", size: 9 })]);
    expect(mine[0]).not.toHaveProperty("content");
    expect(await call("list", grant("two", "read"))).toHaveLength(2);
  });

  it("answers not_found, too_large and limit_reached without throwing", async () => {
    const c = cap({ maxDocBytes: 10, maxDocsPerAgent: 1 });
    const g = grant("one", "write");
    expect(await c.methods.append!(g, ["nope", "x"])).toEqual({ ok: false, reason: "not_found" });
    expect(await c.methods.write!(g, [{ filename: "f", content: "x".repeat(11) }])).toEqual({
      ok: false,
      reason: "too_large",
    });
    expect(await c.methods.write!(g, [{ id: "d", filename: "f", content: "12345678" }])).toMatchObject({
      ok: true,
    });
    expect(await c.methods.append!(g, ["d", "abc"])).toEqual({ ok: false, reason: "too_large" });
    expect(await c.methods.write!(g, [{ filename: "f", content: "x" }])).toEqual({
      ok: false,
      reason: "limit_reached",
    });
    expect(await c.methods.write!(g, [{ id: "d", filename: "f", content: "replaced" }])).toEqual({
      ok: true,
      id: "d",
    });
  });

  it("grants nothing for an absent or unknown level", async () => {
    for (const level of [null, "bogus"] as const) {
      await expect(call("search", grant("x", level), "a")).rejects.toMatchObject({
        code: "AIRLOCK_KNOWLEDGE_NOT_GRANTED",
      });
      expect(await call("write", grant("x", level), { filename: "f", content: "c" })).toEqual({
        ok: false,
        reason: "not_granted",
      });
    }
  });

  it("keeps agents apart: another agent's documents are invisible", async () => {
    await call("write", grant("one", "manage", "a"), { id: "d", filename: "f", content: "secret plan" });
    expect(await call("get", grant("one", "manage", "b"), "d")).toBeNull();
    expect(await call("search", grant("one", "manage", "b"), "plan")).toEqual([]);
    expect(await call("delete", grant("one", "manage", "b"), "d")).toEqual({
      ok: false,
      reason: "not_found",
    });
  });

  it("audits every mutation once, without the content, and leaves reads to the bridge", async () => {
    const c = cap();
    await c.methods.write!(grant("one", "write"), [{ id: "d", filename: "f", content: "TOPSECRET-CONTENT" }]);
    const entries = await store.queryAudit({ agent: "a" });
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ action: "knowledge.write", allowed: true, success: true });
    expect(JSON.stringify(entries)).not.toContain("TOPSECRET");
    expect(c.auditedByBridge!("write")).toBe(false);
    expect(c.auditedByBridge!("search")).toBe(true);
  });

  it("rejects reads with AIRLOCK_KNOWLEDGE_UNAVAILABLE when the store fails", async () => {
    await store.close();
    await expect(call("search", grant("x", "read"), "a")).rejects.toMatchObject({
      code: "AIRLOCK_KNOWLEDGE_UNAVAILABLE",
    });
    store = await openStore({ kind: "sqlite", dataDir: dir });
  });

  it("refuses malformed arguments with AIRLOCK_KNOWLEDGE_INVALID", async () => {
    const g = grant("one", "write");
    for (const [m, args] of [
      ["write", [{ filename: "", content: "x" }]],
      ["write", [{ filename: "f", content: 5 }]],
      ["write", [{ filename: "f", content: "nul\0byte" }]],
      ["get", ["../x"]],
      ["search", [42]],
    ] as const) {
      await expect(cap().methods[m]!(g, args)).rejects.toMatchObject({ code: "AIRLOCK_KNOWLEDGE_INVALID" });
    }
  });
});
