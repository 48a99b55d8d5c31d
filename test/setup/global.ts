// Global test setup: decides once, in the main process, whether the PostgreSQL suites can run,
// says so, and provides the verdict to every worker (test/support/postgres.ts reads it; no
// worker probes again). AIRLOCK_TEST_PG names the server; CI sets AIRLOCK_REQUIRE_PG=1 so that
// an unreachable server fails the run instead of skipping those suites.
// It also gives the run its own per-user state dir (XDG_STATE_HOME), so the hosts tests start
// never record themselves as the developer's running host (host/src/surfaces/cli/host-location.ts).
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import { probePostgres } from "../support/postgres.ts";

export default async function setup(project: TestProject): Promise<void> {
  process.env.XDG_STATE_HOME = mkdtempSync(join(tmpdir(), "airlock-test-state-"));
  const probe = await probePostgres();
  project.provide("airlockPg", probe);
  if (probe.ok) return;
  const why = `PostgreSQL suites will not run: ${probe.reason}`;
  if (process.env.AIRLOCK_REQUIRE_PG === "1") throw new Error(`${why} (AIRLOCK_REQUIRE_PG=1)`);
  process.stdout.write(`\n[airlock] ${why}\n\n`);
}
