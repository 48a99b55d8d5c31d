// The embedded store: one SQLite file `<dataDir>/airlock.db` opened with node:sqlite.
// Durability (option `durability`): the journal is always WAL. "normal" (default) sets
// synchronous=NORMAL: a commit is appended to the WAL without an fsync, so an acknowledged
// write survives a killed process (SIGKILL, crash of Node) — the WAL is in the OS page cache —
// and only an OS crash or power loss can lose the last transactions (never corrupt the file).
// "full" fsyncs the WAL on every commit (survives power loss too), at a large per-write cost:
// node:sqlite is synchronous, so each fsync blocks the event loop.
// Invariants: a crash never leaves a half-written row; busy_timeout lets several processes share
// the file; prepared statements are cached per connection (by SQL text, bounded); migrations are
// applied before the store is handed out; WAL checkpoints run on a thread of their own
// (checkpointer.ts), not inside a commit on the caller's thread.
import { chmodSync, existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { DatabaseSync, type StatementSync } from "node:sqlite";
import { storeError } from "../errors.ts";
import { sqlitePluginWorkers } from "../plugin-workers.ts";
import type { Store } from "../types.ts";
import { insert as insertAudit, sqliteAudit } from "./audit.ts";
import { ensureMarksTable, openAuditJournal, replayAuditJournals } from "./audit-journal.ts";
import { sqliteAuthServer } from "./authz.ts";
import { sqliteBroker } from "./broker.ts";
import { BACKSTOP_PAGES, type Checkpointer, startCheckpointer } from "./checkpointer.ts";
import { sqliteData } from "./data.ts";
import { sqliteKnowledge } from "./knowledge.ts";
import { migrateSqlite } from "./migrations.ts";
import { sqliteRegistry } from "./registry.ts";
import { sqliteTasks } from "./tasks.ts";
import { immediate } from "./tx.ts";

export const SQLITE_FILE = "airlock.db";
/** How long a statement waits for another process's write lock before failing. */
const BUSY_TIMEOUT_MS = 15_000;
/** Distinct SQL texts kept prepared (the store's SQL is a small fixed set plus audit filters). */
const STATEMENT_CACHE_SIZE = 256;

export type SqliteDurability = "full" | "normal";

/** Makes `db.prepare` return a cached statement for SQL it has prepared before. */
function cacheStatements(db: DatabaseSync): void {
  const prepare = db.prepare.bind(db);
  const cache = new Map<string, StatementSync>();
  db.prepare = (sql: string) => {
    let statement = cache.get(sql);
    if (statement === undefined) {
      if (cache.size >= STATEMENT_CACHE_SIZE) cache.clear();
      statement = prepare(sql);
      cache.set(sql, statement);
    }
    return statement;
  };
}

/**
 * Switches the file to WAL. The switch can answer SQLITE_BUSY without calling the busy handler
 * when another process opens the same new file at the same moment (seen with two writers
 * starting together), so a busy answer is retried for up to BUSY_TIMEOUT_MS.
 */
async function walMode(db: DatabaseSync): Promise<void> {
  const until = Date.now() + BUSY_TIMEOUT_MS;
  for (;;) {
    try {
      db.exec("PRAGMA journal_mode = WAL");
      return;
    } catch (error) {
      if ((error as { errcode?: number }).errcode !== 5 || Date.now() > until) throw error;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }
}

export async function openSqliteStore(
  dataDir: string,
  options: { durability?: SqliteDurability } = {},
): Promise<Store> {
  const durability = options.durability ?? "normal";
  if (durability !== "normal" && durability !== "full") {
    throw storeError(
      "AIRLOCK_STORE_CONFIG_INVALID",
      `unknown durability ${JSON.stringify(durability)}; accepted: normal, full`,
    );
  }
  let db: DatabaseSync;
  let file: string;
  try {
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    file = join(dataDir, SQLITE_FILE);
    const created = !existsSync(file);
    db = new DatabaseSync(file, { timeout: BUSY_TIMEOUT_MS });
    // Owner-only, whatever the umask: the file holds secret ciphertext, knowledge and artifacts.
    if (created) chmodSync(file, 0o600);
    db.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
    await walMode(db);
    db.exec(`PRAGMA synchronous = ${durability === "full" ? "FULL" : "NORMAL"}`);
    // checkpoints run on their own thread (checkpointer.ts); this connection's only past a backstop
    db.exec(`PRAGMA wal_autocheckpoint = ${BACKSTOP_PAGES}`);
    cacheStatements(db);
  } catch (err) {
    throw storeError("AIRLOCK_STORE_OPEN_FAILED", `cannot open the SQLite store in ${dataDir}`, {
      cause: err,
    });
  }
  let checkpointer: Checkpointer | undefined;
  const store: Store = {
    kind: "sqlite",
    async migrate() {
      migrateSqlite(db);
    },
    async close() {
      await checkpointer?.stop();
      if (db.isOpen) db.close();
    },
    ...sqliteRegistry(db),
    ...sqliteData(db),
    ...sqliteKnowledge(db),
    ...sqliteAudit(db),
    ...sqliteBroker(db),
    ...sqlitePluginWorkers(db),
    openAuditJournal: () => openAuditJournal(dataDir, db, { durable: durability }),
    ...sqliteTasks(db),
    ...sqliteAuthServer(db),
  };
  try {
    await store.migrate();
    // audit entries a process journaled but did not commit before it died
    ensureMarksTable(db);
    replayAuditJournals(
      dataDir,
      db,
      (e) => insertAudit(db, e),
      (fn) => immediate(db, fn),
    );
  } catch (err) {
    db.close();
    throw err;
  }
  checkpointer = startCheckpointer(file, {
    busyTimeoutMs: BUSY_TIMEOUT_MS,
    onError: (message) => process.emitWarning(message, "AirlockStore"),
  });
  return store;
}
