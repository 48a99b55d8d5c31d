// The store's pg Pool, made so that the database going away never ends the process: pg emits
// 'error' on a pool (a connection dropped while idle) and on a client (dropped while checked
// out, e.g. a transaction between two statements), and an 'error' nobody listens to is thrown
// by Node. Both are listened to here and the last few kept for diagnosis; the statement that
// was running fails on its own (failures.ts codes it AIRLOCK_STORE_UNAVAILABLE), the broken
// client is discarded when released, and the pool connects anew once the database is back.
import pg from "pg";

export function openPool(config: pg.PoolConfig): pg.Pool {
  const pool = new pg.Pool(config);
  const lastErrors: Error[] = [];
  const record = (err: Error) => {
    lastErrors.push(err);
    if (lastErrors.length > 10) lastErrors.shift();
  };
  pool.on("error", record);
  pool.on("connect", (client) => client.on("error", record));
  return pool;
}
