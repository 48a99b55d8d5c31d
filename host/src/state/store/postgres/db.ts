// The small layer between the PostgreSQL store and pg: one-shot queries on the pool and
// transactions on one checked-out client.
// Invariants: a transaction either commits or is rolled back before its client returns to
// the pool; a client whose rollback failed is destroyed rather than reused.
import type pg from "pg";

export type Row = Record<string, unknown>;

export interface Db {
  query(sql: string, params?: readonly unknown[]): Promise<Row[]>;
  /** Runs `fn` in a READ COMMITTED transaction on one client. */
  tx<T>(
    fn: (q: (sql: string, params?: readonly unknown[]) => Promise<pg.QueryResult<Row>>) => Promise<T>,
  ): Promise<T>;
  /** Rows affected by a single statement. */
  exec(sql: string, params?: readonly unknown[]): Promise<number>;
  /**
   * Rows affected by a single statement prepared once per connection under `name` (one name per
   * text): a hot statement skips the server's parse and plan on every later run.
   */
  execPrepared(name: string, sql: string, params: readonly unknown[]): Promise<number>;
}

export function createDb(pool: pg.Pool): Db {
  return {
    async query(sql, params = []) {
      return (await pool.query<Row>(sql, params as unknown[])).rows;
    },
    async exec(sql, params = []) {
      return (await pool.query(sql, params as unknown[])).rowCount ?? 0;
    },
    async execPrepared(name, sql, params) {
      return (await pool.query({ name, text: sql, values: params as unknown[] })).rowCount ?? 0;
    },
    async tx(fn) {
      const client = await pool.connect();
      let release: Error | boolean = false;
      try {
        await client.query("BEGIN");
        const result = await fn((sql, params = []) => client.query<Row>(sql, params as unknown[]));
        await client.query("COMMIT");
        return result;
      } catch (err) {
        try {
          await client.query("ROLLBACK");
        } catch (rollbackErr) {
          release = rollbackErr as Error;
        }
        throw err;
      } finally {
        client.release(release);
      }
    },
  };
}

/** Lock key (second half) of the global artifact caps: every put serialises on it. */
export const ARTIFACT_LOCK = 1;
