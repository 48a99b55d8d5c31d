// SQLite: the audit trail's own file, `<dataDir>/audit.db`, beside the store's `airlock.db`. The
// trail lives apart so that its commits can run on a writer thread with their own connection
// (audit-thread.ts) without ever holding the write lock the host's other writes need: in one
// file, a host write that met a batch commit would sleep in SQLite's busy handler (1 ms at least)
// on the event loop. Here the writer thread is the file's only writer while the store is open;
// the host's connection to it reads (queryAudit), and writes only while the store opens (moving
// an older trail in, replaying journals) and when a journal closes.
// The file holds `audit` (the same columns and indexes as migration 1 made in airlock.db, and
// `audit_kind`) and
// `audit_journal_marks` (audit-journal.ts); `PRAGMA user_version` is its schema version.
// Stores written before the move keep their trail in airlock.db: `moveAuditTrail` copies it here,
// ids kept, before migration 7 drops it there. The copy is one transaction in audit.db and copies
// only rows past audit.db's highest id, so a crash between the copy and the drop only repeats a
// copy of nothing.
// Invariants: an entry is in exactly one trail (audit.db once moved); ids only increase; a file
// with a newer schema than this build is refused, as airlock.db is.
import { chmodSync, existsSync } from "node:fs";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { storeError } from "../errors.ts";
import { BUSY_TIMEOUT_MS, type SqliteDurability, setUpConnection } from "./connection.ts";
import { immediate } from "./tx.ts";

export const AUDIT_FILE = "audit.db";
/**
 * The audit file's schema version (PRAGMA user_version). 2 adds `audit_kind`: without it the
 * console's kind filter (views/audit.js) scanned the whole trail for a rare kind (bench row 13:
 * 98 ms for operator actions among 10^6 entries). SCHEMA runs on every open, so a version-1 file
 * gets the index when it is next opened.
 */
const AUDIT_SCHEMA_VERSION = 2;

const COLUMNS =
  "id, at, agent, plugin, tool, conversation_id, kind, action, allowed, success, error, duration_ms, details";

const SCHEMA = `
  CREATE TABLE IF NOT EXISTS audit (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    at TEXT NOT NULL,
    agent TEXT,
    plugin TEXT,
    tool TEXT,
    conversation_id TEXT,
    kind TEXT NOT NULL,
    action TEXT NOT NULL,
    allowed INTEGER NOT NULL,
    success INTEGER,
    error TEXT,
    duration_ms REAL,
    details TEXT
  );
  CREATE INDEX IF NOT EXISTS audit_agent ON audit (agent, id);
  CREATE INDEX IF NOT EXISTS audit_plugin ON audit (plugin, id);
  CREATE INDEX IF NOT EXISTS audit_tool ON audit (tool, id);
  CREATE INDEX IF NOT EXISTS audit_at ON audit (at);
  CREATE INDEX IF NOT EXISTS audit_kind ON audit (kind, id);
  CREATE TABLE IF NOT EXISTS audit_journal_marks (
    journal TEXT PRIMARY KEY,
    seq INTEGER NOT NULL
  );
`;

/**
 * Opens (creating it owner-only when absent) the audit file of `dataDir` with its schema. The
 * connection is the host's: reads, and the writes of opening and closing (see the header).
 */
export async function openAuditFile(dataDir: string, durability: SqliteDurability): Promise<DatabaseSync> {
  const file = join(dataDir, AUDIT_FILE);
  const created = !existsSync(file);
  const db = new DatabaseSync(file, { timeout: BUSY_TIMEOUT_MS });
  try {
    if (created) chmodSync(file, 0o600);
    await setUpConnection(db, durability);
    immediate(db, () => {
      const { user_version: version } = db.prepare("PRAGMA user_version").get() as { user_version: number };
      if (version > AUDIT_SCHEMA_VERSION) {
        throw storeError(
          "AIRLOCK_STORE_SCHEMA_TOO_NEW",
          `the audit file is at schema version ${version}, this host knows up to ${AUDIT_SCHEMA_VERSION}`,
        );
      }
      db.exec(SCHEMA);
      if (version < AUDIT_SCHEMA_VERSION) db.exec(`PRAGMA user_version = ${AUDIT_SCHEMA_VERSION}`);
    });
  } catch (error) {
    db.close();
    throw error;
  }
  return db;
}

/**
 * Copies the trail and journal marks an older host kept in `mainFile` (airlock.db) into the audit
 * file, ids kept; does nothing when airlock.db has no `audit` table (new, or already moved and
 * migrated). Returns the number of rows copied. Migration 7 drops the old tables afterwards.
 */
export function moveAuditTrail(audit: DatabaseSync, mainFile: string): number {
  audit.prepare("ATTACH DATABASE ? AS old").run(mainFile);
  try {
    const has = (table: string) =>
      audit.prepare("SELECT 1 FROM old.sqlite_master WHERE type = 'table' AND name = ?").get(table) !==
      undefined;
    if (!has("audit")) return 0;
    return immediate(audit, () => {
      const { changes } = audit
        .prepare(
          `INSERT INTO main.audit (${COLUMNS}) SELECT ${COLUMNS} FROM old.audit
           WHERE id > (SELECT COALESCE(MAX(id), 0) FROM main.audit) ORDER BY id`,
        )
        .run();
      if (has("audit_journal_marks")) {
        // a mark only moves forward: the higher of the two, should both files hold one
        audit.exec(
          `INSERT INTO main.audit_journal_marks (journal, seq) SELECT journal, seq FROM old.audit_journal_marks WHERE true
           ON CONFLICT (journal) DO UPDATE SET seq = MAX(seq, excluded.seq)`,
        );
      }
      return Number(changes);
    });
  } finally {
    audit.exec("DETACH DATABASE old");
  }
}
