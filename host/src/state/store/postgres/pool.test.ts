// The store's pool survives its database going away: a client checked out (a transaction
// between two statements) whose connection is cut emits 'error', which ends the process unless
// listened to; the next query after the database is back runs on a new connection.
import { afterAll, beforeAll, expect, it } from "vitest";
import { type PgProxy, pgProxy } from "../../../../../test/support/pg-proxy.ts";
import { describePg } from "../../../../../test/support/postgres.ts";
import { openPool } from "./pool.ts";

describePg("the PostgreSQL store's pool", () => {
  let proxy: PgProxy;
  beforeAll(async () => {
    proxy = await pgProxy();
  });
  afterAll(async () => proxy?.close());

  it("survives a checked-out client's connection being cut, and reconnects once it is back", async () => {
    const pool = openPool({ connectionString: proxy.url, max: 2 });
    try {
      const client = await pool.connect();
      await client.query("BEGIN");
      const ended = new Promise<void>((resolve) => client.once("end", () => resolve()));
      proxy.cut(); // the client is checked out and idle between two statements
      await ended;
      await expect(client.query("SELECT 1")).rejects.toThrow();
      client.release(true);
      await expect(pool.query("SELECT 1")).rejects.toThrow(); // still cut
      proxy.restore();
      expect((await pool.query("SELECT 1 AS one")).rows).toEqual([{ one: 1 }]);
    } finally {
      proxy.restore();
      await pool.end();
    }
  });
});
