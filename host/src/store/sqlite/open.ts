// The embedded store: one SQLite file `<dataDir>/airlock.db` opened with node:sqlite.
// Invariants: WAL journal with synchronous=FULL, so a committed (acknowledged) write survives
// a killed process and a crash never leaves a half-written row; busy_timeout lets several
// processes share the file; migrations are applied before the store is handed out.
import { chmodSync, existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { storeError } from "../errors.ts";
import type { Store } from "../types.ts";
import { sqliteAudit } from "./audit.ts";
import { sqliteData } from "./data.ts";
import { sqliteKnowledge } from "./knowledge.ts";
import { migrateSqlite } from "./migrations.ts";
import { sqliteRegistry } from "./registry.ts";

export const SQLITE_FILE = "airlock.db";
/** How long a statement waits for another process's write lock before failing. */
const BUSY_TIMEOUT_MS = 15_000;

export async function openSqliteStore(dataDir: string): Promise<Store> {
  let db: DatabaseSync;
  try {
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    const file = join(dataDir, SQLITE_FILE);
    const created = !existsSync(file);
    db = new DatabaseSync(file, { timeout: BUSY_TIMEOUT_MS });
    // Owner-only, whatever the umask: the file holds secret ciphertext, knowledge and artifacts.
    if (created) chmodSync(file, 0o600);
    db.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
    db.exec("PRAGMA journal_mode = WAL");
    db.exec("PRAGMA synchronous = FULL");
  } catch (err) {
    throw storeError("AIRLOCK_STORE_OPEN_FAILED", `cannot open the SQLite store in ${dataDir}`, {
      cause: err,
    });
  }
  const store: Store = {
    kind: "sqlite",
    async migrate() {
      migrateSqlite(db);
    },
    async close() {
      if (db.isOpen) db.close();
    },
    ...sqliteRegistry(db),
    ...sqliteData(db),
    ...sqliteKnowledge(db),
    ...sqliteAudit(db),
  };
  try {
    await store.migrate();
  } catch (err) {
    db.close();
    throw err;
  }
  return store;
}
