// Global test setup: decides once whether the PostgreSQL suites can run and says so.
// AIRLOCK_TEST_PG names the server; CI sets AIRLOCK_REQUIRE_PG=1 so that an unreachable
// server fails the run instead of skipping those suites.
import { probePostgres } from "../support/postgres.ts";

export default async function setup(): Promise<void> {
  const probe = await probePostgres();
  if (probe.ok) return;
  const why = `PostgreSQL suites will not run: ${probe.reason}`;
  if (process.env.AIRLOCK_REQUIRE_PG === "1") throw new Error(`${why} (AIRLOCK_REQUIRE_PG=1)`);
  process.stdout.write(`\n[airlock] ${why}\n\n`);
}
