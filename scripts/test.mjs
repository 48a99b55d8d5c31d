// `npm test`: lint and format check (biome), type check (tsc), the host bundle when stale
// (host/src/surfaces/cli/bundle/build.ts), the test suites (vitest), then test/e2e and
// test/hostile a second time with the host fixtures on PostgreSQL (AIRLOCK_TEST_STORE=postgres,
// host/src/state/store/test-store.ts), then the benchmark smoke run alone
// (vitest.bench.config.ts). Arguments go to the main vitest run; with arguments (a subset of
// suites) the PostgreSQL pass and the smoke run are left out.
// Each vitest run writes its per-file durations to test-results/<pass>.json
// (test/setup/durations-reporter.ts) and the run ends with the slowest files of each pass, so slow suites are visible.
// The PostgreSQL pass runs when AIRLOCK_TEST_PG (default 127.0.0.1:5432/test) answers, and
// always with AIRLOCK_REQUIRE_PG=1 (CI), where an unreachable server fails it.
// Stops at the first failing step and exits with its status.
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { probePostgres } from "../test/support/pg-probe.ts";

const ROOT = join(import.meta.dirname, "..");
const RESULTS = join(ROOT, "test-results");

/**
 * Files the PostgreSQL pass leaves out: their hosts are not the fixtures the switch moves.
 * - already on PostgreSQL in the first pass (replicas sharing one store);
 * - the embedded default as a user starts it (`airlock start`/`serve` on a SQLite data dir,
 *   the README and quickstarts as printed, SQLite backup and a crash of its install).
 */
const NOT_IN_POSTGRES_PASS = [
  // on PostgreSQL already
  "test/e2e/backup-doc.test.ts",
  "test/e2e/mcp-replicas.test.ts",
  "test/e2e/mcp-tasks-replicas.test.ts",
  "test/e2e/mcp-tasks-resume.test.ts",
  "test/e2e/replica-races.test.ts",
  "test/e2e/scale-out.test.ts",
  "test/e2e/serve-drain.test.ts",
  "test/e2e/people/operator-round-replicas.test.ts",
  // the embedded default, started as a user starts it
  "test/e2e/quickstart.test.ts",
  "test/e2e/path-install.test.ts",
  "test/e2e/start-bootstrap.test.ts",
  "test/e2e/start-settings.test.ts",
  "test/e2e/api-start.test.ts",
  "test/e2e/journey.test.ts",
  "test/e2e/host-terminal.test.ts",
  "test/e2e/cli-voice.test.ts",
  "test/e2e/backup-restore.test.ts",
  "test/hostile/tarball-crash.test.ts",
];

/** Whether the PostgreSQL pass can run (the suites' own probe, test/support/pg-probe.ts). */
async function postgresAnswers() {
  const probe = await probePostgres();
  if (!probe.ok) process.stdout.write(`\n[airlock] PostgreSQL pass left out: ${probe.reason}\n`);
  return probe.ok;
}

/** vitest with the durations reporter (test/setup/durations-reporter.ts) beside the default one. */
function vitest(pass, args) {
  return [
    "vitest",
    ["run", "--reporter=default", "--reporter=./test/setup/durations-reporter.ts", ...args],
    { AIRLOCK_DURATIONS: join(RESULTS, `${pass}.json`) },
  ];
}

const subset = process.argv.length > 2;
const steps = [
  ["biome", ["ci", "."]],
  ["tsc", ["-p", "."]],
  // the host bundle the suites' `airlock` processes run, rebuilt here if a source changed since
  ["node", ["host/src/surfaces/cli/bundle/build.ts", "--if-stale"]],
  vitest("suites", process.argv.slice(2)),
];
const passes = ["suites"];
if (!subset && (process.env.AIRLOCK_REQUIRE_PG === "1" || (await postgresAnswers()))) {
  const exclude = NOT_IN_POSTGRES_PASS.flatMap((file) => ["--exclude", file]);
  const [cmd, args, env] = vitest("postgres", ["test/e2e", "test/hostile", ...exclude]);
  steps.push([cmd, args, { ...env, AIRLOCK_TEST_STORE: "postgres" }]);
  passes.push("postgres");
}
if (!subset) {
  steps.push(vitest("bench-smoke", ["--config", "vitest.bench.config.ts"]));
  passes.push("bench-smoke");
}

rmSync(RESULTS, { recursive: true, force: true }); // never a report of an earlier run
mkdirSync(RESULTS, { recursive: true });
for (const [cmd, args, env] of steps) {
  const shown = Object.entries(env ?? {}).filter(([name]) => name !== "AIRLOCK_DURATIONS");
  process.stdout.write(
    `\n> ${shown.map(([name, value]) => `${name}=${value} `).join("")}${cmd} ${args.join(" ")}\n`,
  );
  const r = spawnSync(cmd, args, { stdio: "inherit", env: { ...process.env, ...env } });
  if (r.status !== 0) {
    slowest();
    process.exit(r.status ?? 1);
  }
}
slowest();

/** The ten slowest files of each pass that wrote its durations (import + tests and hooks). */
function slowest() {
  for (const pass of passes) {
    let report;
    try {
      report = JSON.parse(readFileSync(join(RESULTS, `${pass}.json`), "utf8"));
    } catch {
      continue;
    }
    const files = report.files
      .map((f) => ({ file: f.file, seconds: (f.collectMs + f.runMs) / 1000 }))
      .sort((a, b) => b.seconds - a.seconds);
    const total = files.reduce((sum, f) => sum + f.seconds, 0);
    process.stdout.write(
      `\n[airlock] ${pass}: ${files.length} files, ${total.toFixed(0)} s in all; slowest:\n`,
    );
    for (const f of files.slice(0, 10))
      process.stdout.write(`  ${f.seconds.toFixed(1).padStart(7)} s  ${f.file}\n`);
  }
}
