// The embedded store: the SQLite file `<dataDir>/airlock.db` opened with node:sqlite, and the audit
// trail's own file `<dataDir>/audit.db` beside it (audit-file.ts), committed by a writer thread.
// Durability (option `durability`): the journal is always WAL. "normal" (default) sets
// synchronous=NORMAL: a commit is appended to the WAL without an fsync, so an acknowledged
// write survives a killed process (SIGKILL, crash of Node) — the WAL is in the OS page cache —
// and only an OS crash or power loss can lose the last transactions (never corrupt the file).
// "full" fsyncs the WAL on every commit (survives power loss too), at a large per-write cost:
// node:sqlite is synchronous, so each fsync blocks the event loop.
// Invariants: a crash never leaves a half-written row; busy_timeout lets several processes share
// the file; prepared statements are cached per connection (by SQL text, bounded); migrations are
// applied before the store is handed out; WAL checkpoints of airlock.db run on a thread of their
// own (checkpointer.ts), and audit commits (with audit.db's checkpoints) on the audit writer
// thread (audit-thread.ts), neither inside a commit on the caller's thread.
import { chmodSync, existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { storeError } from "../errors.ts";
import { sqlitePluginWorkers } from "../plugin-workers.ts";
import { sqliteTrustedKeys } from "../trusted-keys.ts";
import type { Store } from "../types.ts";
import { insert as insertAudit, sqliteAudit } from "./audit.ts";
import { commitAuditBatch } from "./audit-commit.ts";
import { AUDIT_FILE, moveAuditTrail, openAuditFile } from "./audit-file.ts";
import { openAuditJournal, replayAuditJournals } from "./audit-journal.ts";
import { startAuditThread } from "./audit-thread.ts";
import { sqliteAuthServer } from "./authz.ts";
import { sqliteBroker } from "./broker.ts";
import { BACKSTOP_PAGES, type Checkpointer, startCheckpointer } from "./checkpointer.ts";
import { BUSY_TIMEOUT_MS, type SqliteDurability, setUpConnection } from "./connection.ts";
import { sqliteData } from "./data.ts";
import { sqliteKnowledge } from "./knowledge.ts";
import { migrateSqlite } from "./migrations.ts";
import { sqliteRegistry } from "./registry.ts";
import { sqliteTasks } from "./tasks.ts";
import { immediate } from "./tx.ts";

export const SQLITE_FILE = "airlock.db";
export type { SqliteDurability };

/** Caps the file at `maxBytes` (SQLite raises a cap below the file's size to its size). */
function capSize(db: DatabaseSync, maxBytes: number): void {
  if (!Number.isSafeInteger(maxBytes) || maxBytes <= 0) {
    throw storeError("AIRLOCK_STORE_CONFIG_INVALID", `maxBytes must be a positive integer (got ${maxBytes})`);
  }
  const { page_size: pageSize } = db.prepare("PRAGMA page_size").get() as { page_size: number };
  db.exec(`PRAGMA max_page_count = ${Math.max(1, Math.floor(maxBytes / pageSize))}`);
}

export async function openSqliteStore(
  dataDir: string,
  options: { durability?: SqliteDurability; maxBytes?: number } = {},
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
    await setUpConnection(db, durability);
    // checkpoints run on their own thread (checkpointer.ts); this connection's only past a backstop
    db.exec(`PRAGMA wal_autocheckpoint = ${BACKSTOP_PAGES}`);
    if (options.maxBytes !== undefined) capSize(db, options.maxBytes);
  } catch (err) {
    throw storeError("AIRLOCK_STORE_OPEN_FAILED", `cannot open the SQLite store in ${dataDir}`, {
      cause: err,
    });
  }
  let auditDb: DatabaseSync;
  try {
    auditDb = await openAuditFile(dataDir, durability);
  } catch (err) {
    db.close();
    if ((err as { code?: string }).code === "AIRLOCK_STORE_SCHEMA_TOO_NEW") throw err;
    throw storeError("AIRLOCK_STORE_OPEN_FAILED", `cannot open the audit file in ${dataDir}`, {
      cause: err,
    });
  }
  const auditThread = startAuditThread(join(dataDir, AUDIT_FILE), {
    busyTimeoutMs: BUSY_TIMEOUT_MS,
    durability,
    direct: (rows, mark) => commitAuditBatch(auditDb, rows, mark),
  });
  let checkpointer: Checkpointer | undefined;
  const store: Store = {
    kind: "sqlite",
    async migrate() {
      // an older host's trail first: migration 7 drops it from airlock.db
      moveAuditTrail(auditDb, file);
      migrateSqlite(db);
    },
    async close() {
      await checkpointer?.stop();
      await auditThread.stop();
      if (auditDb.isOpen) auditDb.close();
      if (db.isOpen) db.close();
    },
    ...sqliteRegistry(db),
    ...sqliteData(db),
    ...sqliteKnowledge(db),
    ...sqliteAudit(auditDb, auditThread),
    ...sqliteBroker(db),
    ...sqlitePluginWorkers(db),
    ...sqliteTrustedKeys(db),
    openAuditJournal: () => openAuditJournal(dataDir, auditDb, { durable: durability }),
    ...sqliteTasks(db),
    ...sqliteAuthServer(db),
  };
  try {
    await store.migrate();
    // audit entries a process journaled but did not commit before it died
    replayAuditJournals(
      dataDir,
      auditDb,
      (e) => insertAudit(auditDb, e),
      (fn) => immediate(auditDb, fn),
    );
  } catch (err) {
    await auditThread.stop();
    auditDb.close();
    db.close();
    throw err;
  }
  checkpointer = startCheckpointer(file, {
    busyTimeoutMs: BUSY_TIMEOUT_MS,
    onError: (message) => process.emitWarning(message, "AirlockStore"),
  });
  return store;
}
