// What a database's failure becomes, on real errors of the real drivers: SQLite's SQLITE_FULL
// (a file at its max_page_count) is AIRLOCK_STORE_FULL, a backend PostgreSQL terminated
// (pg_terminate_backend: 57P01) is AIRLOCK_STORE_UNAVAILABLE, and what is no outage (a syntax
// error, an error that already has a code) passes unchanged.
import { DatabaseSync } from "node:sqlite";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { describePg, PG_URL } from "../../../../test/support/postgres.ts";
import { storeError } from "./errors.ts";
import { storeFailure } from "./failures.ts";

const thrown = (fn: () => unknown): unknown => {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error("expected a throw");
};

describe("store failures (SQLite)", () => {
  it("codes SQLITE_FULL as AIRLOCK_STORE_FULL and passes a syntax error and a coded error unchanged", () => {
    const db = new DatabaseSync(":memory:");
    db.exec("CREATE TABLE t (x TEXT)");
    const pages = (db.prepare("PRAGMA page_count").get() as { page_count: number }).page_count;
    db.exec(`PRAGMA max_page_count = ${pages}`);
    const full = thrown(() => db.prepare("INSERT INTO t VALUES (?)").run("x".repeat(100_000)));
    expect(storeFailure(full, "sqlite")).toMatchObject({
      code: "AIRLOCK_STORE_FULL",
      status: 507,
      details: { retryAfterSeconds: 30 },
      cause: full,
    });
    const syntax = thrown(() => db.exec("SELEC 1"));
    expect(storeFailure(syntax, "sqlite")).toBe(syntax);
    const coded = storeError("AIRLOCK_STORE_INVALID_INPUT", "bad");
    expect(storeFailure(coded, "sqlite")).toBe(coded);
    db.close();
  });
});

describePg("store failures (PostgreSQL)", () => {
  it("codes a terminated backend as AIRLOCK_STORE_UNAVAILABLE and passes a syntax error unchanged", async () => {
    const victim = new pg.Client({ connectionString: PG_URL });
    const killer = new pg.Client({ connectionString: PG_URL });
    await victim.connect();
    await killer.connect();
    victim.on("error", () => undefined); // the termination also arrives as an 'error' event
    try {
      const syntax = await victim.query("SELEC 1").catch((error: unknown) => error);
      expect(storeFailure(syntax, "postgres")).toBe(syntax);
      const pid = (await victim.query<{ pid: number }>("SELECT pg_backend_pid() AS pid")).rows[0]?.pid;
      const running = victim.query("SELECT pg_sleep(30)").catch((error: unknown) => error);
      // wait until the sleep runs, then end that backend
      for (let i = 0; i < 200; i++) {
        const { rows } = await killer.query(
          "SELECT 1 FROM pg_stat_activity WHERE pid = $1 AND query LIKE 'SELECT pg_sleep%'",
          [pid],
        );
        if (rows.length > 0) break;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      await killer.query("SELECT pg_terminate_backend($1)", [pid]);
      expect(storeFailure(await running, "postgres")).toMatchObject({
        code: "AIRLOCK_STORE_UNAVAILABLE",
        status: 503,
        details: { retryAfterSeconds: 2 },
      });
    } finally {
      await victim.end().catch(() => undefined);
      await killer.end();
    }
  });
});
