// A backup of a store whose host has journaled audit entries it has not committed yet (the audit
// writer commits in batches, audit-journal.ts): the entries are acknowledged, so the backup must
// hold them. The journal is copied before audit.db is snapshotted and replayed into the copy past
// its mark, so every journaled entry is in the restored trail exactly once, and the source's
// journal is left alone for its own host.
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { afterAll, describe, expect, it } from "vitest";
import { createAuditWriter } from "../../engine/pipeline/audit-writer.ts";
import { openStore } from "../store/index.ts";
import { JOURNAL_DIR } from "../store/sqlite/audit-journal.ts";
import type { AuditInput } from "../store/types.ts";
import { createBackup, restoreBackup } from "./index.ts";

const work = mkdtempSync(join(tmpdir(), "airlock-backup-journal-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

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
  details: { i },
});

describe("backup of journaled, uncommitted audit entries", () => {
  it("restores every journaled entry once, committed or not, and leaves the source's journal", async () => {
    const dataDir = join(work, "source");
    const store = await openStore({ kind: "sqlite", dataDir });
    const journal = store.openAuditJournal?.();
    if (journal === undefined) throw new Error("the SQLite store has an audit journal");
    const writer = createAuditWriter(store, { journal, laterMs: 600_000 });
    try {
      for (let i = 0; i < 3; i++) await writer.append(entry(i));
      await writer.flush(); // 0..2 committed and marked
      for (let i = 3; i < 5; i++) await writer.append(entry(i)); // acknowledged: journaled only
      const file = join(work, "backup.tar.gz");
      await createBackup({ dataDir, file, env: {}, hostRunning: true });
      expect(readdirSync(join(dataDir, JOURNAL_DIR)).length).toBeGreaterThan(0);

      const target = join(work, "restored");
      await restoreBackup(file, target);
      expect(existsSync(join(target, JOURNAL_DIR))).toBe(false);
      const db = new DatabaseSync(join(target, "audit.db"), { readOnly: true });
      try {
        const rows = db.prepare("SELECT action FROM audit ORDER BY id").all() as Array<{ action: string }>;
        expect(rows.map((r) => r.action)).toEqual(["a-0", "a-1", "a-2", "a-3", "a-4"]);
      } finally {
        db.close();
      }
    } finally {
      await writer.flush();
      writer.close();
      await store.close();
    }
  });
});
