// The one probe of the PostgreSQL test server, without vitest: the global setup
// (test/setup/global.ts, through postgres.ts) and `npm test` (scripts/test.mjs, deciding whether
// the PostgreSQL pass runs) both ask it.
import pg from "pg";
import { PG_URL } from "../../host/src/state/store/test-store.ts";

export { PG_URL };

export interface PgProbe {
  ok: boolean;
  reason: string;
}

/** One probe (5 s connect timeout); the global setup calls it once for the whole run. */
export async function probePostgres(): Promise<PgProbe> {
  const client = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: 5000 });
  try {
    await client.connect();
    await client.query("select 1");
    return { ok: true, reason: "reachable" };
  } catch (err) {
    return { ok: false, reason: `${PG_URL} unreachable (${(err as Error).message})` };
  } finally {
    await client.end().catch(() => undefined);
  }
}
