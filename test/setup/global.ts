// Global test setup: decides once, in the main process, whether the PostgreSQL suites can run,
// says so, and provides the verdict to every worker (test/support/postgres.ts reads it; no
// worker probes again). AIRLOCK_TEST_PG names the server; CI sets AIRLOCK_REQUIRE_PG=1 so that
// an unreachable server fails the run instead of skipping those suites.
// It also gives the run its own per-user state dir (XDG_STATE_HOME), so the hosts tests start
// never record themselves as the developer's running host (host/src/surfaces/cli/host-location.ts).
// With AIRLOCK_TEST_STORE=postgres the host fixtures keep their stores in PostgreSQL schemas
// (host/src/state/store/test-store.ts): the server must answer, and the teardown drops them.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import { dropTestStoreSchemas, testStoreKind } from "../../host/src/state/store/test-store.ts";
import { probePostgres } from "../support/postgres.ts";

export default async function setup(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  process.env.XDG_STATE_HOME = mkdtempSync(join(tmpdir(), "airlock-test-state-"));
  const probe = await probePostgres();
  project.provide("airlockPg", probe);
  if (testStoreKind() === "postgres") {
    if (!probe.ok) throw new Error(`AIRLOCK_TEST_STORE=postgres needs PostgreSQL: ${probe.reason}`);
    await dropTestStoreSchemas(); // a killed run's leftovers
    process.stdout.write(
      "\n[airlock] host fixtures keep their stores in PostgreSQL (AIRLOCK_TEST_STORE=postgres)\n\n",
    );
    return async () => {
      await dropTestStoreSchemas();
    };
  }
  if (probe.ok) return undefined;
  const why = `PostgreSQL suites will not run: ${probe.reason}`;
  if (process.env.AIRLOCK_REQUIRE_PG === "1") throw new Error(`${why} (AIRLOCK_REQUIRE_PG=1)`);
  process.stdout.write(`\n[airlock] ${why}\n\n`);
  return undefined;
}
