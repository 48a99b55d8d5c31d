// SQLite: consistent copies of a live store's files, for `airlock backup` (state/backup/).
// `snapshotFile` copies one database with `VACUUM INTO` on a read-only connection: the copy is
// one read transaction, so it is the database as of one instant (every transaction committed
// before it began, none after, nothing half-written), and in WAL mode it never blocks the host's
// writers nor is torn by them. `foldAuditJournals` brings a snapshot of audit.db up to date with
// the audit journals (audit-journal.ts) copied before it: entries a running host has journaled
// but not yet committed are replayed into the copy, past each journal's mark, as the host itself
// would replay them on its next start.
// Invariants: the source files are only read (never checkpointed, migrated or locked for writing);
// the copies are plain rollback-journal files, owner-only.
import { randomBytes } from "node:crypto";
import { chmodSync, copyFileSync, mkdirSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { insert as insertAudit } from "./audit.ts";
import { JOURNAL_DIR, replayAuditJournals } from "./audit-journal.ts";
import { BUSY_TIMEOUT_MS } from "./connection.ts";
import { SQLITE_MIGRATIONS } from "./migrations.ts";
import { immediate } from "./tx.ts";

/** The schema version this build migrates airlock.db to. */
export const SQLITE_SCHEMA_VERSION = SQLITE_MIGRATIONS.at(-1)?.version ?? 0;

const HEADER = "SQLite format 3\0";

/** Whether `bytes` (a file's first 16 bytes at least) begin like a SQLite database. */
export function isSqliteHeader(bytes: Uint8Array): boolean {
  return Buffer.from(bytes.subarray(0, 16)).toString("latin1") === HEADER;
}

/** Copies the database at `source` into the new file `target` as of one instant. */
export function snapshotFile(source: string, target: string): void {
  const db = new DatabaseSync(source, { readOnly: true, timeout: BUSY_TIMEOUT_MS });
  try {
    db.prepare("VACUUM INTO ?").run(target);
  } finally {
    db.close();
  }
  chmodSync(target, 0o600);
}

/** airlock.db's schema version (its highest applied migration); 0 for a store never migrated. */
export function storeSchemaVersion(file: string): number {
  const db = new DatabaseSync(file, { readOnly: true });
  try {
    const table = db
      .prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'")
      .get();
    if (table === undefined) return 0;
    const row = db.prepare("SELECT MAX(version) AS v FROM schema_migrations").get() as { v: number | null };
    return row.v ?? 0;
  } finally {
    db.close();
  }
}

/** The relative plugin folders airlock.db at `file` names (installed_plugins.path). */
export function installedPluginPaths(file: string): string[] {
  const db = new DatabaseSync(file, { readOnly: true });
  try {
    const rows = db.prepare("SELECT path FROM installed_plugins").all() as Array<{ path: string }>;
    return rows.map((r) => r.path);
  } finally {
    db.close();
  }
}

/** `PRAGMA integrity_check` of the database at `file`: "ok", or what it found. */
export function integrityCheck(file: string): string {
  const db = new DatabaseSync(file, { readOnly: true });
  try {
    const rows = db.prepare("PRAGMA integrity_check").all() as Array<{ integrity_check: string }>;
    return rows.map((r) => r.integrity_check).join("; ");
  } finally {
    db.close();
  }
}

/**
 * Copies the journal segments of `dataDir` into `stagingDir`, each journal under a new name of
 * this process's, marked as being replayed by it: the replay below then takes every copy, even
 * one whose writer still runs — another process, or this one (an embedder backing up its own
 * open store). Call it before snapshotting audit.db: a segment that disappears meanwhile was
 * committed, so the later snapshot holds it. Returns each journal's new name by its old one.
 */
export function copyAuditJournals(dataDir: string, stagingDir: string): Map<string, string> {
  const to = join(stagingDir, JOURNAL_DIR);
  mkdirSync(to, { recursive: true, mode: 0o700 });
  const names = new Map<string, string>();
  let files: string[];
  try {
    files = readdirSync(join(dataDir, JOURNAL_DIR));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return names;
    throw error;
  }
  for (const file of files) {
    const m = /^(\d+-[0-9a-f]+)\.(\d+)\.jsonl(?:\.replay-\d+)?$/.exec(file);
    if (m === null) continue;
    const old = m[1] as string;
    const renamed = names.get(old) ?? `${process.pid}-${randomBytes(6).toString("hex")}`;
    names.set(old, renamed);
    try {
      copyFileSync(
        join(dataDir, JOURNAL_DIR, file),
        join(to, `${renamed}.${m[2]}.jsonl.replay-${process.pid}`),
      );
    } catch (error) {
      // committed and deleted since the listing: the audit.db snapshot taken next holds it
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    }
  }
  return names;
}

/**
 * Replays the journals copied into `stagingDir` (copyAuditJournals, with the names it returned)
 * into the audit.db snapshot there, past each journal's mark, then removes the copies. Returns
 * how many entries were added.
 */
export function foldAuditJournals(stagingDir: string, auditFile: string, names: Map<string, string>): number {
  const db = new DatabaseSync(auditFile);
  try {
    immediate(db, () => {
      const rename = db.prepare("UPDATE audit_journal_marks SET journal = ? WHERE journal = ?");
      for (const [old, renamed] of names) rename.run(renamed, old);
    });
    return replayAuditJournals(
      stagingDir,
      db,
      (e) => insertAudit(db, e),
      (fn) => immediate(db, fn),
    );
  } finally {
    db.close();
    rmSync(join(stagingDir, JOURNAL_DIR), { recursive: true, force: true });
  }
}
