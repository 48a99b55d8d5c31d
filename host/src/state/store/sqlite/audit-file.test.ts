// The audit trail's own file: an older store's trail moves into audit.db with its ids and
// journal marks (and leaves airlock.db), a journal left by a dead process replays past its mark
// after the move, a repeated move copies nothing twice, a newer audit file is refused, an older
// one gets the kind index, and
// details a structured clone refuses reach the writer thread as the store keeps them, and a
// writer thread that cannot start fails each batch (and the next batch tries a new thread), and
// batches commit on the caller's connection until the thread is up, then on it, in order.
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { afterAll, describe, expect, it } from "vitest";
import { openStore } from "../index.ts";
import type { AuditInput } from "../types.ts";
import { INSERT_AUDIT } from "./audit-commit.ts";
import { AUDIT_FILE, moveAuditTrail, openAuditFile } from "./audit-file.ts";
import { startAuditThread } from "./audit-thread.ts";
import { migrateSqlite, SQLITE_MIGRATIONS } from "./migrations.ts";

const root = mkdtempSync(join(tmpdir(), "airlock-audit-file-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const entry = (action: string): AuditInput => ({
  agent: "ada",
  plugin: "notes",
  tool: "search",
  conversationId: "c1",
  kind: "tool",
  action,
  allowed: true,
  success: true,
  error: null,
  durationMs: 1.5,
  details: { action },
});

/** A data dir as a host before the move left it: airlock.db at schema 6 with a trail and a mark. */
function olderStore(dataDir: string): void {
  mkdirSync(dataDir, { recursive: true });
  const db = new DatabaseSync(join(dataDir, "airlock.db"));
  migrateSqlite(
    db,
    SQLITE_MIGRATIONS.filter((m) => m.version <= 6),
  );
  db.exec("CREATE TABLE audit_journal_marks (journal TEXT PRIMARY KEY, seq INTEGER NOT NULL)");
  const insert = db.prepare(
    `INSERT INTO audit (id, at, agent, plugin, tool, conversation_id, kind, action, allowed, success, error, duration_ms, details)
     VALUES (?, ?, 'ada', 'notes', 'search', 'c1', 'tool', ?, 1, 1, NULL, 2.5, ?)`,
  );
  for (const [id, action] of [
    [5, "old-1"],
    [6, "old-2"],
    [9, "old-3"],
  ] as const) {
    insert.run(id, `2026-11-0${id}T10:00:00.000Z`, action, JSON.stringify({ action }));
  }
  db.close();
}

const auditTables = (file: string) => {
  const db = new DatabaseSync(file);
  try {
    return (
      db
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'audit%' ORDER BY name")
        .all() as Array<{ name: string }>
    ).map((r) => r.name);
  } finally {
    db.close();
  }
};

describe("SQLite audit file", () => {
  it("moves an older trail into audit.db with its ids and marks, then replays a dead process's journal past its mark", async () => {
    const dataDir = join(root, "move");
    olderStore(dataDir);
    // a journal a process that is gone left behind: its mark (in airlock.db) says 2 are committed
    const dead = spawnSync("true").pid;
    const journal = `${dead}-0123456789ab`;
    const old = new DatabaseSync(join(dataDir, "airlock.db"));
    old.prepare("INSERT INTO audit_journal_marks (journal, seq) VALUES (?, 2)").run(journal);
    old.close();
    mkdirSync(join(dataDir, "audit-journal"));
    const lines = ["j-1", "j-2", "j-3"].map(
      (action, i) =>
        `${JSON.stringify({ s: i + 1, e: { ...entry(action), at: "2026-11-30T10:00:00.000Z" } })}\n`,
    );
    writeFileSync(join(dataDir, "audit-journal", `${journal}.0.jsonl`), lines.join(""));

    const store = await openStore({ kind: "sqlite", dataDir });
    try {
      const rows = await store.queryAudit({});
      expect(rows.map((r) => [r.id, r.action])).toEqual([
        [10, "j-3"],
        [9, "old-3"],
        [6, "old-2"],
        [5, "old-1"],
      ]);
      expect(rows[3]).toMatchObject({ durationMs: 2.5, details: { action: "old-1" }, agent: "ada" });
      await store.appendAudit(entry("new"));
      expect((await store.queryAudit({ limit: 1 }))[0]).toMatchObject({ id: 11, action: "new" });
    } finally {
      await store.close();
    }
    expect(auditTables(join(dataDir, "airlock.db"))).toEqual([]);
    expect(auditTables(join(dataDir, AUDIT_FILE))).toEqual(["audit", "audit_journal_marks"]);
    const again = await openStore({ kind: "sqlite", dataDir });
    expect((await again.queryAudit({})).map((r) => r.action)).toEqual([
      "new",
      "j-3",
      "old-3",
      "old-2",
      "old-1",
    ]);
    await again.close();
  });

  it("copies nothing twice when the move is repeated before airlock.db dropped its trail", async () => {
    const dataDir = join(root, "twice");
    olderStore(dataDir);
    const audit = await openAuditFile(dataDir, "normal");
    try {
      expect(moveAuditTrail(audit, join(dataDir, "airlock.db"))).toBe(3);
      // a crash here: the next open moves again before migration 7 runs
      expect(moveAuditTrail(audit, join(dataDir, "airlock.db"))).toBe(0);
    } finally {
      audit.close();
    }
    const store = await openStore({ kind: "sqlite", dataDir });
    expect((await store.queryAudit({})).map((r) => r.id)).toEqual([9, 6, 5]);
    await store.close();
  });

  it("refuses an audit file of a newer host with AIRLOCK_STORE_SCHEMA_TOO_NEW, airlock.db untouched", async () => {
    const dataDir = join(root, "newer");
    const store = await openStore({ kind: "sqlite", dataDir });
    await store.ensureAgent("ada");
    await store.close();
    const audit = new DatabaseSync(join(dataDir, AUDIT_FILE));
    audit.exec("PRAGMA user_version = 99");
    audit.close();
    await expect(openStore({ kind: "sqlite", dataDir })).rejects.toMatchObject({
      code: "AIRLOCK_STORE_SCHEMA_TOO_NEW",
    });
    const main = new DatabaseSync(join(dataDir, "airlock.db"));
    expect(main.prepare("SELECT slug FROM agents").all()).toEqual([{ slug: "ada" }]);
    main.close();
  });

  it("gives a version-1 audit file the kind index on open, and the kind filter reads it instead of the trail", async () => {
    const dataDir = join(root, "kind-index");
    const store = await openStore({ kind: "sqlite", dataDir });
    await store.close();
    const older = new DatabaseSync(join(dataDir, AUDIT_FILE));
    older.exec("DROP INDEX IF EXISTS audit_kind; PRAGMA user_version = 1");
    older.close();
    const reopened = await openStore({ kind: "sqlite", dataDir });
    await reopened.close();
    const audit = new DatabaseSync(join(dataDir, AUDIT_FILE));
    try {
      expect(audit.prepare("PRAGMA user_version").get()).toEqual({ user_version: 2 });
      // the statement store/sqlite/audit.ts builds for `{ kind, limit }`
      const plan = audit
        .prepare("EXPLAIN QUERY PLAN SELECT * FROM audit WHERE kind = ? ORDER BY id DESC LIMIT ?")
        .all("admin", 500)
        .map((r) => String(r.detail));
      expect(plan.join(" | ")).toMatch(/USING INDEX audit_kind/);
      expect(plan.join(" | ")).not.toMatch(/TEMP B-TREE/);
    } finally {
      audit.close();
    }
  });

  it("stores details a structured clone refuses as sanitised, and keeps the rest of the batch", async () => {
    const store = await openStore({ kind: "sqlite", dataDir: join(root, "clone") });
    try {
      const odd = { ...entry("odd"), details: { n: 1, f: () => 1, s: Symbol("x"), big: 2n } };
      await store.appendAuditBatch?.([entry("plain"), odd]);
      const rows = await store.queryAudit({});
      expect(rows.map((r) => [r.action, r.details])).toEqual([
        ["odd", { n: 1, big: "2" }],
        ["plain", { action: "plain" }],
      ]);
    } finally {
      await store.close();
    }
  });

  it("fails each batch when the writer thread cannot start, and tries a new thread for the next", async () => {
    const thread = startAuditThread(join(root, "no-such-dir", AUDIT_FILE), {
      busyTimeoutMs: 100,
      durability: "normal",
    });
    await expect(thread.write([entry("a")])).rejects.toThrow(/audit writer thread stopped/);
    await expect(thread.write([entry("b")], { journal: "j", seq: 1 })).rejects.toThrow(
      /audit writer thread stopped/,
    );
    await thread.stop();
    await expect(thread.write([entry("c")])).rejects.toThrow(/stopped/);
  });

  it("commits on the caller's connection until the thread is up, then on the thread, in order", async () => {
    const dataDir = join(root, "direct");
    mkdirSync(dataDir);
    const audit = await openAuditFile(dataDir, "normal");
    let direct = 0;
    const thread = startAuditThread(join(dataDir, AUDIT_FILE), {
      busyTimeoutMs: 1000,
      durability: "normal",
      direct: (rows) => {
        direct++;
        for (const row of rows) audit.prepare(INSERT_AUDIT).run(...row);
      },
    });
    try {
      await thread.write([entry("first")]); // the thread cannot be up yet: committed here
      expect(direct).toBe(1);
      let i = 0;
      const deadline = Date.now() + 10_000;
      while (Date.now() < deadline) {
        const before = direct;
        await thread.write([entry(`n${i++}`)]);
        if (direct === before) break; // this one went to the thread
        await new Promise((r) => setTimeout(r, 20));
      }
      await thread.write([entry("last")]);
      const actions = (
        audit.prepare("SELECT action FROM audit ORDER BY id").all() as Array<{ action: string }>
      ).map((r) => r.action);
      expect(actions).toEqual(["first", ...Array.from({ length: i }, (_, k) => `n${k}`), "last"]);
      expect(direct).toBeLessThan(i + 1); // the thread took over
    } finally {
      await thread.stop();
      audit.close();
    }
  });
});
