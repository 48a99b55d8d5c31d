// How the SQLite store opens a node:sqlite connection (the main file's, the audit file's, and
// their threads'): busy_timeout, WAL, synchronous per the store's durability, and prepared
// statements kept per connection by SQL text (the store's SQL is a small fixed set plus audit
// filters, and preparing costs more than running a short statement).
// Invariants: the statement cache is bounded (cleared whole when full); a connection is in WAL
// before anything is written through it.
import type { DatabaseSync, StatementSync } from "node:sqlite";

/** How long a statement waits for another connection's write lock before failing. */
export const BUSY_TIMEOUT_MS = 15_000;
/** Distinct SQL texts kept prepared. */
const STATEMENT_CACHE_SIZE = 256;

export type SqliteDurability = "full" | "normal";

/** Makes `db.prepare` return a cached statement for SQL it has prepared before. */
export function cacheStatements(db: DatabaseSync): void {
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

/** The synchronous pragma of a durability ("full" fsyncs the WAL on every commit). */
export function synchronousPragma(durability: SqliteDurability): string {
  return `PRAGMA synchronous = ${durability === "full" ? "FULL" : "NORMAL"}`;
}

/** WAL, the durability's synchronous pragma, and the statement cache: how every file opens. */
export async function setUpConnection(db: DatabaseSync, durability: SqliteDurability): Promise<void> {
  await walMode(db);
  db.exec(synchronousPragma(durability));
  cacheStatements(db);
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
