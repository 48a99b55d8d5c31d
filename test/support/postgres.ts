// Where the PostgreSQL test server is and whether the PostgreSQL suites run. The global setup
// (test/setup/global.ts) probes once, in the main process, and provides its verdict to every
// worker (`inject("airlockPg")`), so a worker never probes again under load and skips silently.
// `describePg` runs its suite when the verdict is "reachable", and ALWAYS when
// AIRLOCK_REQUIRE_PG=1 (CI): there an unreachable server fails the suites, it never skips them.
// Otherwise it skips with the reason in the suite's name.
import pg from "pg";
import { describe, inject } from "vitest";

export const PG_URL = process.env.AIRLOCK_TEST_PG ?? "postgres://postgres@127.0.0.1:5432/test";

export interface PgProbe {
  ok: boolean;
  reason: string;
}

declare module "vitest" {
  export interface ProvidedContext {
    airlockPg: PgProbe;
  }
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

export const PG_REQUIRED = process.env.AIRLOCK_REQUIRE_PG === "1";

/** The run's verdict, decided once by the global setup. */
export function pgVerdict(): PgProbe {
  const verdict = inject("airlockPg");
  if (verdict === undefined) throw new Error("test/setup/global.ts did not run: no PostgreSQL verdict");
  return verdict;
}

/** `describe` for suites that need PostgreSQL; see the header for when it skips. */
export function describePg(name: string, fn: () => void): void {
  const verdict = pgVerdict();
  if (verdict.ok || PG_REQUIRED) describe(name, fn);
  else describe.skip(`${name} [skipped: ${verdict.reason}]`, fn);
}
