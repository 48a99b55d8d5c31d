// The SQLite audit journal when a write fails part-way (a full disk, a file-size limit): the
// entries of that write are refused and what part of them reached the file is cut back, so the
// entries journaled after it are replayed after a crash; when the cut itself fails, the journal
// refuses every later write instead of writing after a torn line. node:fs is the real one except
// for the one write (and the one truncate) these tests make fail.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createAuditWriter } from "../../pipeline/audit-writer.ts";
import { openStore } from "../index.ts";
import type { AuditInput, Store } from "../types.ts";
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
  details: null,
});

async function actions(store: Store): Promise<string[]> {
  return (await store.queryAudit({ limit: 1000 })).map((r) => r.action).reverse();
}

describe("audit journal: a write that fails part-way", () => {
  let dir: string;
  let store: Store;
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), "airlock-journal-fail-"));
    store = await openStore({ kind: "sqlite", dataDir: dir });
  });
  afterEach(async () => {
    fault.partial = false;
    fault.truncateFails = false;
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("refuses its entry, leaves whole lines only, and the entries after it are replayed", async () => {
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

  it("refuses every later write when what reached the file cannot be cut back", async () => {
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
