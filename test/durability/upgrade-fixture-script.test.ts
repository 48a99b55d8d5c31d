// The command test/fixtures/upgrade/README.md prints for making a release's upgrade fixture, run
// as printed (its `--out` folder a temporary one) on today's code: it fills a real host on both
// stores and writes what upgrade.test.ts reads, so the script still works when the next release
// is cut.
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, expect, it } from "vitest";
import { PG_URL, pgVerdict } from "../support/postgres.ts";

const ROOT = resolve(import.meta.dirname, "../..");
const README = readFileSync(join(ROOT, "test/fixtures/upgrade/README.md"), "utf8");
const PRINTED = /^node --no-node-snapshot scripts\/make-upgrade-fixture\.ts .*$/m.exec(README)?.[0] ?? "";
let out = "";
afterAll(async () => {
  if (out !== "") await rm(out, { recursive: true, force: true });
});

it("makes both halves of a fixture with the README's command", async () => {
  expect(PRINTED).toBe(
    "node --no-node-snapshot scripts/make-upgrade-fixture.ts --out test/fixtures/upgrade/<version>",
  );
  out = await mkdtemp(join(tmpdir(), "airlock-fixture-script-"));
  const [, ...args] = PRINTED.replace("test/fixtures/upgrade/<version>", join(out, "next")).split(" ");
  // PostgreSQL required in CI (AIRLOCK_REQUIRE_PG); elsewhere the SQLite half alone when it is unreachable
  const onlySqlite = !pgVerdict().ok && process.env.AIRLOCK_REQUIRE_PG !== "1";
  if (onlySqlite) args.push("--only", "sqlite");
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: { ...process.env, AIRLOCK_TEST_PG: PG_URL },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.on("data", (c: Buffer) => {
    output += c.toString("utf8");
  });
  child.stderr.on("data", (c: Buffer) => {
    output += c.toString("utf8");
  });
  const status = await new Promise<number | null>((done) => child.once("close", done));
  expect(status, output).toBe(0);
  const dir = join(out, "next");
  const facts = JSON.parse(readFileSync(join(dir, "facts.json"), "utf8"));
  const version = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).version;
  expect(facts.sqlite.hostVersion).toBe(version);
  expect(existsSync(join(dir, "sqlite", "data", "airlock.db"))).toBe(true);
  expect(existsSync(join(dir, "sqlite", "data", "master.key"))).toBe(true);
  expect(facts.sqlite.documents).toHaveLength(2);
  expect(facts.sqlite.views.audit.entries.length).toBeGreaterThan(50);
  if (onlySqlite) return;
  expect(facts.postgres.hostVersion).toBe(version);
  expect(readFileSync(join(dir, "postgres", "dump.sql"), "utf8")).toContain(
    `CREATE TABLE ${facts.postgres.schema}.tokens`,
  );
}, 300_000);
