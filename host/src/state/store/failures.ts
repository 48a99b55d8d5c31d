// The store failing is an answer: `storeFailure(error)` turns a database's failure to be reached
// or written into a coded, retryable AirlockError, and `guardStore(store)` applies it to every
// method of a Store, so no caller meets a driver's error for an outage.
// - AIRLOCK_STORE_FULL (507): no space — SQLITE_FULL (a full disk, or the file at its
//   max_page_count), PostgreSQL's disk_full (53100), ENOSPC / EDQUOT from a file write.
// - AIRLOCK_STORE_UNAVAILABLE (503, Retry-After): the database cannot be reached or written now —
//   SQLite busy, locked, I/O error or unopenable; PostgreSQL's connection exceptions (class 08),
//   shutdowns and terminated backends (57P01–57P03), too many connections (53300, 53400); a
//   refused, reset or timed-out socket; and, on PostgreSQL, pg's own connection errors, which
//   carry no code at all (a plain Error: "Connection terminated unexpectedly", a connect timeout).
// Invariants: an error that already has an AIRLOCK_* code, or any other database error (a
// constraint, a syntax error, a bug), passes unchanged; the original is kept as `cause`; the
// message names no URL, credential or statement.
import { AirlockError, hasCode } from "@airlock/sdk";
import { storeError } from "./errors.ts";
import type { Store } from "./types.ts";

/** Seconds a client should wait before retrying, by code (the HTTP surfaces send it as Retry-After). */
export const STORE_RETRY_AFTER_SECONDS = { AIRLOCK_STORE_UNAVAILABLE: 2, AIRLOCK_STORE_FULL: 30 } as const;

const SQLITE_FULL = 13;
/** SQLITE_BUSY, SQLITE_LOCKED, SQLITE_IOERR, SQLITE_CANTOPEN (primary result codes). */
const SQLITE_UNAVAILABLE = new Set([5, 6, 10, 14]);
const PG_UNAVAILABLE = new Set(["57P01", "57P02", "57P03", "53300", "53400"]);
const SOCKET_UNAVAILABLE = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ECONNABORTED",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
]);

type Dialect = "sqlite" | "postgres";

const full = (cause: unknown) =>
  storeError("AIRLOCK_STORE_FULL", "the store is out of space: nothing was written; free space, then retry", {
    cause,
    details: { retryAfterSeconds: STORE_RETRY_AFTER_SECONDS.AIRLOCK_STORE_FULL },
  });
const unavailable = (cause: unknown) =>
  storeError(
    "AIRLOCK_STORE_UNAVAILABLE",
    "the store cannot be reached right now: nothing was written; retry shortly",
    {
      cause,
      details: { retryAfterSeconds: STORE_RETRY_AFTER_SECONDS.AIRLOCK_STORE_UNAVAILABLE },
    },
  );

/** The coded failure `error` means, or `error` itself when it is no outage of the store. */
export function storeFailure(error: unknown, dialect: Dialect): unknown {
  if (error instanceof AirlockError || (hasCode(error) && error.code.startsWith("AIRLOCK_"))) return error;
  const e = (typeof error === "object" && error !== null ? error : {}) as {
    code?: unknown;
    errcode?: unknown;
    severity?: unknown;
  };
  if (typeof e.errcode === "number" && e.code === "ERR_SQLITE_ERROR") {
    const primary = e.errcode & 0xff; // an extended result code keeps its primary code in the low byte
    if (primary === SQLITE_FULL) return full(error);
    return SQLITE_UNAVAILABLE.has(primary) ? unavailable(error) : error;
  }
  if (typeof e.severity === "string" && typeof e.code === "string") {
    // a PostgreSQL server error: its SQLSTATE says what happened
    if (e.code === "53100") return full(error);
    return e.code.startsWith("08") || PG_UNAVAILABLE.has(e.code) ? unavailable(error) : error;
  }
  if (e.code === "ENOSPC" || e.code === "EDQUOT") return full(error);
  if (typeof e.code === "string") return SOCKET_UNAVAILABLE.has(e.code) ? unavailable(error) : error;
  // pg's connection errors are plain Errors without a code; our own code throws coded errors
  if (dialect === "postgres" && error instanceof Error && Object.getPrototypeOf(error) === Error.prototype)
    return unavailable(error);
  return error;
}

/** Whether `error` is a store outage a caller may answer as retryable (UNAVAILABLE or FULL). */
export function isStoreOutage(error: unknown): boolean {
  return hasCode(error, "AIRLOCK_STORE_UNAVAILABLE") || hasCode(error, "AIRLOCK_STORE_FULL");
}

function guardMethods<T extends object>(target: T, dialect: Dialect): T {
  const guarded: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(target)) {
    if (typeof value !== "function") {
      guarded[name] = value;
      continue;
    }
    const fn = value as (...args: unknown[]) => unknown;
    guarded[name] = (...args: unknown[]) => {
      let result: unknown;
      try {
        result = fn.apply(target, args);
      } catch (error) {
        throw storeFailure(error, dialect);
      }
      return result instanceof Promise
        ? result.catch((error: unknown) => {
            throw storeFailure(error, dialect);
          })
        : result;
    };
  }
  return guarded as T;
}

/** `store` with every method's (and its cluster's) outage errors coded (see the header). */
export function guardStore(store: Store): Store {
  const dialect: Dialect = store.kind === "postgres" ? "postgres" : "sqlite";
  const guarded = guardMethods(store, dialect);
  return store.cluster === undefined
    ? guarded
    : { ...guarded, cluster: guardMethods(store.cluster, dialect) };
}
