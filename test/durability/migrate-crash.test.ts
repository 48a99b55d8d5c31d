// Migrations killed half-way: the store an older release left (test/fixtures/upgrade/<version>)
// is migrated by this version in a child process that SIGKILLs itself just before one of the
// statements of the migration run (migrate-crash-child.ts), once for every statement from the
// first pending migration on. After each kill the store is never half-migrated: every migration
// is either recorded with all its effects or absent with none of them (SQLite: each migration is
// one transaction; PostgreSQL: the whole run is). Then the next start finishes the migrations (a
// real host, `airlock serve`, serving the release's plugin, at the first, a middle and the last
// kill point; the same migration run again, in the test's process, at the others) and no row the
// release wrote is lost.
import { spawnSync } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { migratePostgres, POSTGRES_MIGRATIONS } from "../../host/src/state/store/postgres/migrations.ts";
import { dropSchemas, freshSchemaName } from "../../host/src/state/store/postgres/test-schema.ts";
import { migrateSqlite, SQLITE_MIGRATIONS } from "../../host/src/state/store/sqlite/migrations.ts";
import { call, serve, textOf } from "../../scripts/make-upgrade-fixture.ts";
import { describePg, PG_URL } from "../support/postgres.ts";
import {
  copyDataDir,
  type Facts,
  type FixtureDir,
  fixtureDirs,
  lostRows,
  pgSnapshot,
  restoreDump,
  type Snapshot,
  sqliteSnapshot,
} from "./upgrade-support.ts";

const CHILD = join(import.meta.dirname, "migrate-crash-child.ts");
const PATHS = "plugin paths relative to the data directory";
const TRUST = "publisher keys trusted per namespace";

/** The same migration run as the child's, in this process, to completion. */
async function migrateAgain(config: { kind: string; dataDir: string; url?: string; schema?: string }) {
  if (config.kind === "sqlite") {
    const db = new DatabaseSync(join(config.dataDir, "airlock.db"));
    try {
      migrateSqlite(db);
    } finally {
      db.close();
    }
    return;
  }
  const client = new pg.Client({ connectionString: config.url, options: `-c search_path=${config.schema}` });
  await client.connect();
  try {
    await migratePostgres(client as unknown as pg.PoolClient, config.schema);
  } finally {
    await client.end();
  }
}

/** The first, a middle and the last kill point: where the next start is a real host. */
function realHostAt(points: number[]): Set<number> {
  return new Set(
    [points[0], points[Math.floor(points.length / 2)], points.at(-1)].filter((p) => p !== undefined),
  );
}

/** Runs the child; answers the statements' labels (killBefore 0) or how it ended. */
function migrateChild(config: object, killBefore: number) {
  const run = spawnSync(
    process.execPath,
    ["--no-node-snapshot", CHILD, JSON.stringify(config), String(killBefore)],
    {
      encoding: "utf8",
    },
  );
  const labels = run.stdout
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l) as string);
  return { signal: run.signal, status: run.status, stderr: run.stderr, labels };
}

/**
 * What is half-done in a store a kill left: recorded versions must run 1..n without a gap, and the
 * effects of the migrations that change the 1.0.0 data (relative plugin paths, the trusted_keys
 * table) are present exactly when their migration is recorded.
 */
function halfMigrated(snapshot: Snapshot, prefix: string, migrations: typeof SQLITE_MIGRATIONS): string[] {
  const rows = (table: string) => snapshot.get(`${prefix}:${table}`);
  const versions = (rows("schema_migrations") ?? []).map((r) => Number(r.version)).sort((a, b) => a - b);
  const problems: string[] = [];
  if (versions.some((v, i) => v !== i + 1)) problems.push(`versions recorded with a gap: ${versions}`);
  const recorded = (name: string) => {
    const m = migrations.find((x) => x.name === name);
    return m !== undefined && versions.includes(m.version);
  };
  const paths = (rows("installed_plugins") ?? []).map((r) => String(r.path)).filter((p) => p !== "");
  const relative = paths.filter((p) => !p.startsWith("/"));
  if (recorded(PATHS) ? relative.length !== paths.length : relative.length !== 0)
    problems.push(
      `plugin paths ${JSON.stringify(paths)} with "${PATHS}" ${recorded(PATHS) ? "" : "not "}recorded`,
    );
  if (recorded(TRUST) !== snapshot.has(`${prefix}:trusted_keys`))
    problems.push(
      `trusted_keys ${snapshot.has(`${prefix}:trusted_keys`) ? "exists" : "is missing"} with "${TRUST}" ${recorded(TRUST) ? "" : "not "}recorded`,
    );
  return problems;
}

/**
 * The next start finishes what the kill interrupted: at `real` kill points a real host (`airlock
 * serve`, which also serves the release's plugin), at the others the same migration run again in
 * the test's process (a real host costs seconds per point on a loaded machine).
 */
async function nextStart(
  real: boolean,
  facts: Facts,
  config: { kind: string; dataDir: string; url?: string; schema?: string },
  snapshot: () => Promise<Snapshot>,
) {
  if (!real) {
    await migrateAgain(config);
    return { version: null, after: await snapshot() };
  }
  const { dataDir } = config;
  const store =
    config.url === undefined
      ? undefined
      : `${config.url}${config.url.includes("?") ? "&" : "?"}schema=${config.schema}`;
  const host = await serve(store === undefined ? { dataDir } : { dataDir, store });
  let version: string | null = null;
  try {
    version = textOf(await call(host, facts.agentTokens.ada, "ada", "fx:version", {}));
  } finally {
    expect(await host.stop(), host.output()).toBe(0);
  }
  return { version, after: await snapshot() };
}

for (const fixture of fixtureDirs()) sqliteCrash(fixture);
for (const fixture of fixtureDirs()) pgCrash(fixture);

function sqliteCrash(fixture: FixtureDir): void {
  describe(`a migration of the ${fixture.version} SQLite data dir killed between two statements`, () => {
    let root = "";
    afterAll(async () => {
      if (root !== "") await rm(root, { recursive: true, force: true });
    });
    it("leaves each migration whole or absent, and the next start completes them with nothing lost", async () => {
      root = await mkdtemp(join(tmpdir(), "airlock-migrate-kill-"));
      const facts = fixture.facts.sqlite;
      const active = (facts.views.plugins.plugins as Facts[]).find((p) => p.namespace === "fx").active;
      const fresh = (name: string) => {
        const dir = join(root, name, "data");
        copyDataDir(join(fixture.dir, "sqlite", "data"), dir);
        return dir;
      };
      const before = sqliteSnapshot(fresh("before"));
      const dry = migrateChild({ kind: "sqlite", dataDir: fresh("dry") }, 0);
      expect(dry.status, dry.stderr).toBe(0);
      const firstPending = dry.labels.findIndex((l) => l.startsWith("INSERT INTO schema_migrations")) - 3;
      expect(firstPending).toBeGreaterThanOrEqual(0);
      const points = dry.labels.map((_, i) => i + 1).slice(firstPending);
      expect(points.length).toBeGreaterThanOrEqual(5);
      const real = realHostAt(points);
      for (const killBefore of points) {
        const dataDir = fresh(`kill-${killBefore}`);
        const config = { kind: "sqlite", dataDir };
        const killed = migrateChild(config, killBefore);
        expect(killed.signal, `${killBefore}: ${killed.stderr}`).toBe("SIGKILL");
        expect(
          halfMigrated(sqliteSnapshot(dataDir), "airlock.db", SQLITE_MIGRATIONS),
          dry.labels[killBefore - 1],
        ).toEqual([]);
        const { version, after } = await nextStart(real.has(killBefore), facts, config, async () =>
          sqliteSnapshot(dataDir),
        );
        if (real.has(killBefore)) expect(version).toBe(active);
        const versions = (after.get("airlock.db:schema_migrations") ?? []).map((r) => Number(r.version));
        expect(versions.sort((a, b) => a - b)).toEqual(SQLITE_MIGRATIONS.map((m) => m.version));
        expect(lostRows(before, after), dry.labels[killBefore - 1]).toEqual([]);
        const db = new DatabaseSync(join(dataDir, "airlock.db"), { readOnly: true });
        expect(db.prepare("PRAGMA integrity_check").get()).toEqual({ integrity_check: "ok" });
        db.close();
      }
    }, 600_000);
  });
}

function pgCrash(fixture: FixtureDir): void {
  describePg(`PostgreSQL (${fixture.version})`, () => {
    const schemas: string[] = [];
    let root = "";
    afterAll(async () => {
      await dropSchemas(PG_URL, schemas);
      if (root !== "") await rm(root, { recursive: true, force: true });
    });
    it(`a migration of the ${fixture.version} dump killed between two statements leaves it unmigrated, and the next start completes it with nothing lost`, async () => {
      root = await mkdtemp(join(tmpdir(), "airlock-migrate-kill-pg-"));
      const facts = fixture.facts.postgres;
      const active = (facts.views.plugins.plugins as Facts[]).find((p) => p.namespace === "fx").active;
      const fresh = () => {
        const schema = freshSchemaName("airlock_mk");
        schemas.push(schema);
        restoreDump(PG_URL, join(fixture.dir, "postgres", "dump.sql"), facts.schema, schema);
        return schema;
      };
      const first = fresh();
      const before = await pgSnapshot(PG_URL, first);
      const dry = migrateChild({ kind: "postgres", url: PG_URL, schema: first }, 0);
      expect(dry.status, dry.stderr).toBe(0);
      expect(dry.labels.length).toBeGreaterThanOrEqual(5);
      // from the statement that reads the recorded versions on (the ones before it change nothing)
      const firstPending = dry.labels.findIndex((l) => l.startsWith("INSERT INTO schema_migrations")) - 2;
      expect(firstPending).toBeGreaterThanOrEqual(0);
      const points = dry.labels.map((_, i) => i + 1).slice(firstPending);
      const real = realHostAt(points);
      for (const killBefore of points) {
        const schema = fresh();
        const dataDir = join(root, `kill-${killBefore}`, "data");
        const config = { kind: "postgres", url: PG_URL, schema, dataDir };
        const killed = migrateChild(config, killBefore);
        expect(killed.signal, `${killBefore}: ${killed.stderr}`).toBe("SIGKILL");
        const left = await pgSnapshot(PG_URL, schema);
        expect(halfMigrated(left, "pg", POSTGRES_MIGRATIONS), dry.labels[killBefore - 1]).toEqual([]);
        expect(left.get("pg:schema_migrations")).toEqual(before.get("pg:schema_migrations"));
        copyDataDir(join(fixture.dir, "postgres", "data"), dataDir);
        const { version, after } = await nextStart(real.has(killBefore), facts, config, () =>
          pgSnapshot(PG_URL, schema),
        );
        if (real.has(killBefore)) expect(version).toBe(active);
        const versions = (after.get("pg:schema_migrations") ?? []).map((r) => Number(r.version));
        expect(versions.sort((a, b) => a - b)).toEqual(POSTGRES_MIGRATIONS.map((m) => m.version));
        expect(lostRows(before, after), dry.labels[killBefore - 1]).toEqual([]);
      }
    }, 600_000);
  });
}
