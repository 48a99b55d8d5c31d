// Transactions for the synchronous node:sqlite driver. `immediate` takes the write lock up
// front (BEGIN IMMEDIATE) so a multi-statement operation never deadlocks on lock upgrade
// with another process; busy_timeout (set at open) makes the other process wait instead of failing.
// Invariant: the callback is synchronous, so nothing else in this process interleaves with it.
import type { DatabaseSync } from "node:sqlite";

export function immediate<T>(db: DatabaseSync, fn: () => T): T {
  db.exec("BEGIN IMMEDIATE");
  let result: T;
  try {
    result = fn();
  } catch (err) {
    if (db.isTransaction) db.exec("ROLLBACK");
    throw err;
  }
  db.exec("COMMIT");
  return result;
}
