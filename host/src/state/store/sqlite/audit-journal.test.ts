// The SQLite audit journal and the audit writer's journal mode, over a real store: a journaled
// entry is acknowledged before it commits and committed later with its mark (by the writer's own
// timer, entries appended apart in one batch); entries appended together share one journal
// write; a journal left
// behind is replayed past its mark only (no entry twice); a torn last line is skipped; a failed
// batch is retried whole, in order; closing after everything committed deletes the journal; a
// journal write that fails part-way (a full disk) refuses its entries and leaves whole lines only
// (or, when it cannot, refuses every later write). node:fs is the real one except for the one
// write (and the one truncate) the last tests make fail.
import { appendFileSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createAuditWriter, withAuditWriter } from "../../../engine/pipeline/audit-writer.ts";
import { openStore } from "../index.ts";
import type { AuditInput, AuditJournalMark, Store } from "../types.ts";
import { JOURNAL_DIR } from "./audit-journal.ts";

/** What the next journal write does: take half its bytes, then fail; and whether truncating fails. */
const fault = vi.hoisted(() => ({ partial: false, truncateFails: false }));

vi.mock("node:fs", async (importOriginal) => {
  const fs = await importOriginal<typeof import("node:fs")>();
  const enospc = () => Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC" });
  let failNext = false;
  const writeSync = ((
    fd: number,
    data: string | NodeJS.ArrayBufferView,
    at?: number | null,
    length?: number,
  ) => {
    if (failNext) {
      failNext = false;
      throw enospc();
    }
    if (typeof data === "string") {
      if (!fault.partial) return fs.writeSync(fd, data);
      data = Buffer.from(data, "utf8");
      at = 0;
      length = data.byteLength;
    }
    const offset = at ?? 0;
    const len = length ?? data.byteLength - offset;
    if (fault.partial && len > 1) {
      fault.partial = false;
      failNext = true; // the rest of this write fails
      return fs.writeSync(fd, data, offset, Math.floor(len / 2));
    }
    return fs.writeSync(fd, data, offset, len);
  }) as typeof fs.writeSync;
  const ftruncateSync = ((fd: number, len?: number) => {
    if (fault.truncateFails) {
      fault.truncateFails = false;
      throw Object.assign(new Error("EIO: i/o error, ftruncate"), { code: "EIO" });
    }
    return fs.ftruncateSync(fd, len);
  }) as typeof fs.ftruncateSync;
  return { ...fs, default: { ...fs, writeSync, ftruncateSync }, writeSync, ftruncateSync };
});

const entry = (i: number): AuditInput => ({
  agent: "ada",
  plugin: "p",
  tool: "t",
  conversationId: "c",
  kind: "capability",
  action: `a-${i}`,
  allowed: true,
  success: true,
  error: null,
  durationMs: 0,
  details: { i, bytes: new Uint8Array([1, 2]) },
});

async function actions(store: Store): Promise<string[]> {
  return (await store.queryAudit({ limit: 1000 })).map((r) => r.action).reverse();
}

describe("audit journal", () => {
  let dir: string;
  let store: Store;
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), "airlock-journal-"));
    store = await openStore({ kind: "sqlite", dataDir: dir });
  });
  afterEach(async () => {
    fault.partial = false;
    fault.truncateFails = false;
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("acknowledges an entry once journaled and commits it in a later batch, binary details dropped", async () => {
    const journal = store.openAuditJournal!();
    const writer = createAuditWriter(store, { journal, laterMs: 1000 });
    await writer.append(entry(0));
    expect(await actions(store)).toEqual([]); // journaled, not yet committed
    await writer.flush();
    const [row] = await store.queryAudit({ limit: 1 });
    expect(row?.action).toBe("a-0");
    expect(row?.details).toEqual({ i: 0 });
    writer.close();
    expect(readdirSync(join(dir, JOURNAL_DIR))).toEqual([]);
  });

  it("journals the entries appended in one run of microtasks with one write, refusing a malformed one alone", async () => {
    const journal = store.openAuditJournal!();
    const writes: number[] = [];
    const write = journal.writeStamped.bind(journal);
    journal.writeStamped = (entries) => {
      writes.push(entries.length);
      return write(entries);
    };
    const writer = createAuditWriter(store, { journal, laterMs: 1000 });
    const malformed: AuditInput = { ...entry(9), at: "not a time" };
    const settled = await Promise.allSettled([
      writer.append(entry(0)),
      writer.append(malformed),
      writer.append(entry(1)),
      writer.append(entry(2)),
    ]);
    expect(settled.map((r) => r.status)).toEqual(["fulfilled", "rejected", "fulfilled", "fulfilled"]);
    expect(writes).toEqual([3]);
    await writer.append(entry(3));
    expect(writes).toEqual([3, 1]);
    expect(await actions(store)).toEqual([]); // journaled, not yet committed
    journal.close(false); // as if the process died now: the next open replays all four, once
    await store.close();
    store = await openStore({ kind: "sqlite", dataDir: dir });
    expect(await actions(store)).toEqual(["a-0", "a-1", "a-2", "a-3"]);
  });

  it("replays a journal left behind past its mark only, and deletes it", async () => {
    const journal = store.openAuditJournal!();
    const writer = createAuditWriter(store, { journal, laterMs: 1000 });
    for (let i = 0; i < 3; i++) await writer.append(entry(i));
    await writer.flush(); // 0..2 committed, marked at 3
    for (let i = 3; i < 5; i++) await writer.append(entry(i));
    journal.close(false); // as if the process died with 3 and 4 journaled only
    await store.close();
    store = await openStore({ kind: "sqlite", dataDir: dir });
    expect(await actions(store)).toEqual(["a-0", "a-1", "a-2", "a-3", "a-4"]);
    expect(readdirSync(join(dir, JOURNAL_DIR))).toEqual([]);
  });

  it("skips a torn last line and replays the rest", async () => {
    const journal = store.openAuditJournal!();
    const writer = createAuditWriter(store, { journal, laterMs: 1000 });
    await writer.append(entry(0));
    journal.close(false);
    const [file] = readdirSync(join(dir, JOURNAL_DIR));
    appendFileSync(join(dir, JOURNAL_DIR, file!), '{"s":2,"e":{"agent":"ad');
    await store.close();
    store = await openStore({ kind: "sqlite", dataDir: dir });
    expect(await actions(store)).toEqual(["a-0"]);
  });

  it("commits journaled entries by itself within laterMs, entries appended apart sharing a batch", async () => {
    const batches: number[] = [];
    const counting: Store = Object.create(store) as Store;
    Object.assign(counting, {
      async appendAuditBatch(entries: readonly AuditInput[], mark?: AuditJournalMark) {
        batches.push(entries.length);
        await store.appendAuditBatch!(entries, mark);
      },
    });
    // long enough that the three appends (5 ms apart) come within it on a stalled machine too
    const writer = createAuditWriter(counting, { journal: store.openAuditJournal!(), laterMs: 500 });
    const started = Date.now();
    for (let i = 0; i < 3; i++) {
      await writer.append(entry(i));
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    // no flush: the writer's own timer commits them (read through the store, which does not flush)
    while ((await actions(store)).length < 3 && Date.now() - started < 2_000)
      await new Promise((resolve) => setTimeout(resolve, 5));
    expect(await actions(store)).toEqual(["a-0", "a-1", "a-2"]);
    expect(batches).toEqual([3]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(500);
    writer.close();
  });

  it("refuses an entry with a bad time before journaling it", async () => {
    const writer = createAuditWriter(store, { journal: store.openAuditJournal!() });
    await expect(writer.append({ ...entry(0), at: "not a date" })).rejects.toMatchObject({
      code: "AIRLOCK_STORE_INVALID_INPUT",
    });
    await writer.append(entry(1));
    await writer.flush();
    expect(await actions(store)).toEqual(["a-1"]);
  });

  it("retries a failed batch whole and in order; entries stay journaled meanwhile", async () => {
    let failures = 2;
    const marks: AuditJournalMark[] = [];
    const failing: Store = Object.create(store) as Store;
    Object.assign(failing, {
      async appendAuditBatch(entries: readonly AuditInput[], mark?: AuditJournalMark) {
        if (failures-- > 0) throw new Error("disk full");
        if (mark) marks.push(mark);
        await store.appendAuditBatch!(entries, mark);
      },
    });
    const errors: unknown[] = [];
    const writer = createAuditWriter(failing, {
      journal: store.openAuditJournal!(),
      laterMs: 1,
      onCommitError: (e) => errors.push(e),
    });
    for (let i = 0; i < 4; i++) await writer.append(entry(i));
    await new Promise((resolve) => setTimeout(resolve, 20));
    await writer.append(entry(4));
    const wrapped = withAuditWriter(store, writer);
    await new Promise((resolve) => setTimeout(resolve, 350)); // two retries, 100 ms apart
    expect(await actions(wrapped)).toEqual(["a-0", "a-1", "a-2", "a-3", "a-4"]);
    expect(errors.length).toBe(2);
    expect(marks.at(-1)?.seq).toBe(5);
  });

  it("refuses an entry whose write fails part-way, leaves whole lines only, and the entries after it are replayed", async () => {
    const journal = store.openAuditJournal!();
    const writer = createAuditWriter(store, { journal, laterMs: 60_000 });
    await writer.append(entry(0));
    fault.partial = true;
    await expect(writer.append(entry(1))).rejects.toMatchObject({ code: "ENOSPC" });
    await writer.append(entry(2));
    const [file] = readdirSync(join(dir, JOURNAL_DIR));
    const text = readFileSync(join(dir, JOURNAL_DIR, file!), "utf8");
    expect(text.endsWith("\n")).toBe(true);
    const lines = text
      .trimEnd()
      .split("\n")
      .map((l) => JSON.parse(l) as { s: number; e: AuditInput });
    expect(lines.map((l) => [l.s, l.e.action])).toEqual([
      [1, "a-0"],
      [2, "a-2"],
    ]);
    journal.close(false); // as if the process died here, nothing committed
    await store.close();
    store = await openStore({ kind: "sqlite", dataDir: dir });
    expect(await actions(store)).toEqual(["a-0", "a-2"]);
  });

  it("refuses every later write when a failed write cannot be cut back", async () => {
    const journal = store.openAuditJournal!();
    const writer = createAuditWriter(store, { journal, laterMs: 60_000 });
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.message);
    process.on("warning", onWarning);
    try {
      await writer.append(entry(0));
      fault.partial = true;
      fault.truncateFails = true;
      await expect(writer.append(entry(1))).rejects.toMatchObject({ code: "ENOSPC" });
      await expect(writer.append(entry(2))).rejects.toThrow("the audit journal cannot be written");
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings.some((w) => w.includes("EIO"))).toBe(true);
    } finally {
      process.off("warning", onWarning);
    }
    journal.close(false);
    await store.close();
    store = await openStore({ kind: "sqlite", dataDir: dir });
    // the torn line is the segment's last: replay skips it and keeps the acknowledged entry
    expect(await actions(store)).toEqual(["a-0"]);
  });
});
