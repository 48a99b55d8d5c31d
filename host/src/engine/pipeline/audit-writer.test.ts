// The group-commit audit writer over a real SQLite store: entries appended together share one
// batch, a query sees everything appended before it, closing commits what is buffered, a full
// buffer makes appenders wait (never drops), and one bad entry fails alone.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openStore } from "../../state/store/index.ts";
import type { AuditInput, Store } from "../../state/store/types.ts";
import { createAuditWriter, withAuditWriter } from "./audit-writer.ts";

const entry = (i: number): AuditInput => ({
  agent: "ada",
  plugin: "p",
  tool: "t",
  conversationId: null,
  kind: "tool",
  action: `call-${i}`,
  allowed: true,
  success: true,
  error: null,
  durationMs: 1,
  details: { i },
});

/** The real store, recording the size of every batch written through appendAuditBatch. */
function recording(store: Store): { sink: Store; batches: number[] } {
  const batches: number[] = [];
  const sink: Store = Object.create(store) as Store;
  const batch = (store as { appendAuditBatch?: (e: readonly AuditInput[]) => Promise<void> })
    .appendAuditBatch;
  Object.assign(sink, {
    async appendAuditBatch(entries: readonly AuditInput[]) {
      batches.push(entries.length);
      if (batch === undefined) for (const e of entries) await store.appendAudit(e);
      else await batch.call(store, entries);
    },
  });
  return { sink, batches };
}

describe("audit writer", () => {
  let dir: string;
  let raw: Store;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "airlock-audit-writer-"));
    raw = await openStore({ kind: "sqlite", dataDir: dir });
  });
  afterEach(async () => {
    await raw.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("writes entries appended in the same tick as one batch, in order", async () => {
    const { sink, batches } = recording(raw);
    const writer = createAuditWriter(sink);
    await Promise.all(Array.from({ length: 40 }, (_, i) => writer.append(entry(i))));
    expect(batches).toEqual([40]);
    const rows = await raw.queryAudit({ limit: 100 });
    expect(rows.map((r) => r.action).reverse()).toEqual(Array.from({ length: 40 }, (_, i) => `call-${i}`));
  });

  it("lets a query see every entry appended before it, even unawaited", async () => {
    const store = withAuditWriter(raw, createAuditWriter(raw));
    for (let i = 0; i < 25; i++) void store.appendAudit(entry(i));
    expect(await store.queryAudit({ limit: 100 })).toHaveLength(25);
  });

  it("commits buffered entries on close", async () => {
    const store = withAuditWriter(raw, createAuditWriter(raw));
    for (let i = 0; i < 10; i++) void store.appendAudit(entry(i));
    await store.close();
    raw = await openStore({ kind: "sqlite", dataDir: dir });
    expect(await raw.queryAudit({ limit: 100 })).toHaveLength(10);
  });

  it("makes appenders wait when the buffer is full, and drops nothing", async () => {
    const { sink, batches } = recording(raw);
    const writer = createAuditWriter(sink, { maxBatch: 4, maxBuffered: 8 });
    let highWater = 0;
    const appends = Array.from({ length: 50 }, (_, i) => {
      const done = writer.append(entry(i));
      highWater = Math.max(highWater, writer.pending);
      return done;
    });
    await Promise.all(appends);
    expect(highWater).toBeLessThanOrEqual(8 + 4);
    expect(batches.every((n) => n <= 4)).toBe(true);
    expect(await raw.queryAudit({ limit: 100 })).toHaveLength(50);
  });

  it("rejects only the entry that cannot be written; the rest of its batch commits", async () => {
    const writer = createAuditWriter(raw);
    const bad: AuditInput = { ...entry(1), at: "not a time" };
    const results = await Promise.allSettled([
      writer.append(entry(0)),
      writer.append(bad),
      writer.append(entry(2)),
    ]);
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    expect((await raw.queryAudit({ limit: 10 })).map((r) => r.action).sort()).toEqual(["call-0", "call-2"]);
  });
});
