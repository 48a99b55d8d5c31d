// Where the PostgreSQL test server is and whether the PostgreSQL suites run. The global setup
// (test/setup/global.ts) probes once, in the main process, and provides its verdict to every
// worker (`inject("airlockPg")`), so a worker never probes again under load and skips silently.
// `describePg` runs its suite when the verdict is "reachable", and ALWAYS when
// AIRLOCK_REQUIRE_PG=1 (CI): there an unreachable server fails the suites, it never skips them.
// Otherwise it skips with the reason in the suite's name.
import { describe, inject } from "vitest";
import type { PgProbe } from "./pg-probe.ts";

export { PG_URL, type PgProbe, probePostgres } from "./pg-probe.ts";

declare module "vitest" {
  export interface ProvidedContext {
    airlockPg: PgProbe;
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
