// Where the PostgreSQL test server is and whether it answers. Suites that need it use
// `describePg`, which skips with the reason in the suite's name when it does not.
import pg from "pg";
import { describe } from "vitest";

export const PG_URL = process.env.AIRLOCK_TEST_PG ?? "postgres://postgres@127.0.0.1:5432/test";

export interface PgProbe {
  ok: boolean;
  reason: string;
}

let cached: Promise<PgProbe> | undefined;

export function probePostgres(): Promise<PgProbe> {
  cached ??= (async () => {
    const client = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: 2000 });
    try {
      await client.connect();
      await client.query("select 1");
      return { ok: true, reason: "reachable" };
    } catch (err) {
      return { ok: false, reason: `${PG_URL} unreachable (${(err as Error).message})` };
    } finally {
      await client.end().catch(() => undefined);
    }
  })();
  return cached;
}

const probe = await probePostgres();

/** `describe` for suites that need PostgreSQL; skipped, with the reason in the name, when it is unreachable. */
export function describePg(name: string, fn: () => void): void {
  if (probe.ok) describe(name, fn);
  else describe.skip(`${name} [skipped: ${probe.reason}]`, fn);
}
