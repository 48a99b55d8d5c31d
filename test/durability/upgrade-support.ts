// The pieces of the upgrade suite: the fixture folders (test/fixtures/upgrade/<version>/), a copy
// of a fixture's SQLite data dir, a fixture's PostgreSQL dump restored into a fresh schema, the
// raw rows of every table of a store (before and after the current code migrated it), and the
// comparisons: every row an older version wrote is still there, column for column, unless a rule
// below says why not; every fact the fixture recorded is still shown.
// Contract: rows are compared on the columns the older version had (a migration may add columns,
// never change or drop what was there); the only rewrite allowed is REWRITES'; the only rows
// allowed to go are the ones PRUNABLE names, each for a reason the store documents.
import { spawnSync } from "node:child_process";
import { chmodSync, cpSync, existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import pg from "pg";

export const FIXTURES = join(import.meta.dirname, "..", "fixtures", "upgrade");

// biome-ignore lint/suspicious/noExplicitAny: facts.json is data the checks walk
export type Facts = any;

export interface FixtureDir {
  version: string;
  dir: string;
  facts: Facts;
}

/** Every fixture folder that holds a facts.json, oldest version first. */
export function fixtureDirs(): FixtureDir[] {
  return readdirSync(FIXTURES, { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(join(FIXTURES, d.name, "facts.json")))
    .map((d) => ({
      version: d.name,
      dir: join(FIXTURES, d.name),
      facts: JSON.parse(readFileSync(join(FIXTURES, d.name, "facts.json"), "utf8")),
    }))
    .sort((a, b) => a.version.localeCompare(b.version, "en", { numeric: true }));
}

/** Copies a fixture's data dir to `to`, with the owner-only modes git does not keep. */
export function copyDataDir(from: string, to: string): void {
  cpSync(from, to, { recursive: true });
  for (const file of ["master.key", "credentials.json"])
    if (existsSync(join(to, file))) chmodSync(join(to, file), 0o600);
}

/** Restores a fixture's dump into `schema` (and `<schema>_jobs`), renaming the schema it was made in. */
export function restoreDump(url: string, dumpFile: string, fromSchema: string, schema: string): void {
  const dump = readFileSync(dumpFile, "utf8").replaceAll(fromSchema, schema);
  const run = spawnSync("psql", ["-q", "-v", "ON_ERROR_STOP=1", "-d", url, "-f", "-"], {
    input: dump,
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
  if (run.status !== 0) throw new Error(`psql could not restore ${dumpFile}: ${run.stderr}`);
}

export type Row = Record<string, unknown>;
export type Snapshot = Map<string, Row[]>;

/** A value as comparable JSON: bytes as hex, dates as ISO text, bigints as text. */
function plain(value: unknown): unknown {
  if (value instanceof Uint8Array) return `hex:${Buffer.from(value).toString("hex")}`;
  if (value instanceof Date) return value.toISOString();
  if (typeof value === "bigint") return value.toString();
  return value;
}

function plainRow(row: Row): Row {
  return Object.fromEntries(Object.entries(row).map(([k, v]) => [k, plain(v)]));
}

/** Every row of every table of the SQLite files of a data dir (`<file>:<table>`), FTS shadows left out. */
export function sqliteSnapshot(dataDir: string): Snapshot {
  const snapshot: Snapshot = new Map();
  for (const file of ["airlock.db", "audit.db"]) {
    if (!existsSync(join(dataDir, file))) continue;
    const db = new DatabaseSync(join(dataDir, file), { readOnly: true });
    try {
      const tables = db
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'knowledge_fts%'")
        .all() as { name: string }[];
      for (const { name } of tables)
        snapshot.set(`${file}:${name}`, (db.prepare(`SELECT * FROM "${name}"`).all() as Row[]).map(plainRow));
    } finally {
      db.close();
    }
  }
  return snapshot;
}

/** Every row of every table of a PostgreSQL store schema (the job queue's schema is pg-boss's own). */
export async function pgSnapshot(url: string, schema: string): Promise<Snapshot> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows: tables } = await client.query<{ tablename: string }>(
      "SELECT tablename FROM pg_tables WHERE schemaname = $1",
      [schema],
    );
    const snapshot: Snapshot = new Map();
    for (const { tablename } of tables) {
      const { rows } = await client.query(`SELECT * FROM "${schema}"."${tablename}"`);
      snapshot.set(`pg:${tablename}`, rows.map(plainRow));
    }
    return snapshot;
  } finally {
    await client.end();
  }
}

/**
 * Columns a migration rewrites on purpose, with the check that the rewrite kept the meaning:
 * installed_plugins.path, absolute in 1.0.0, relative to the data dir since SQLite migration 8 /
 * PostgreSQL migration 9 (a data dir that moves keeps working).
 */
const REWRITES: Record<string, Record<string, (before: unknown, after: unknown) => boolean>> = {
  installed_plugins: {
    path: (before, after) =>
      before === after || (typeof after === "string" && String(before).endsWith(`/${after}`)),
  },
};

/** When a row may be gone after the host ran: its expiry passed, or it is a replica's own liveness record. */
const PRUNABLE: Record<string, (row: Row, now: number) => boolean> = {
  // short-lived by contract (docs/store.md): swept once expired
  artifacts: (row, now) => expired(row.expires_at, now),
  tasks: (row, now) => expired(row.expires_at, now),
  authz_secrets: (row, now) => expired(row.expires_at, now),
  oauth_flows: (row, now) => expired(row.expires_at, now),
};

function expired(at: unknown, now: number): boolean {
  const ms =
    typeof at === "number"
      ? at
      : typeof at === "string" && /^\d+$/.test(at)
        ? Number(at)
        : Date.parse(String(at));
  return Number.isFinite(ms) && ms <= now;
}

/** Tables whose rows are a running replica's bookkeeping, rewritten by every start (never user data). */
const LIVENESS = new Set(["replicas", "host_events", "sqlite_sequence"]);

/**
 * What the migrated store lost or changed of the older store's rows: one line per problem.
 * Rows are matched on the columns `before` had; REWRITES' columns are matched by their rule.
 */
export function lostRows(before: Snapshot, after: Snapshot, now = Date.now()): string[] {
  const problems: string[] = [];
  for (const [key, rows] of before) {
    const table = key.slice(key.indexOf(":") + 1);
    if (LIVENESS.has(table)) continue;
    const now_ = after.get(key);
    if (now_ === undefined) {
      if (rows.length > 0) problems.push(`${key}: the table is gone with its ${rows.length} rows`);
      continue;
    }
    const rewrites = REWRITES[table] ?? {};
    const left = [...now_];
    for (const row of rows) {
      const at = left.findIndex((candidate) =>
        Object.entries(row).every(([column, value]) => {
          const rule = rewrites[column];
          if (rule !== undefined) return rule(value, candidate[column]);
          return JSON.stringify(candidate[column]) === JSON.stringify(value);
        }),
      );
      if (at >= 0) left.splice(at, 1);
      else if (PRUNABLE[table]?.(row, now) !== true)
        problems.push(`${key}: lost or changed ${JSON.stringify(row)}`);
    }
  }
  return problems;
}

/**
 * `actual` shows at least what `fact` recorded: objects key by key, arrays of records matched by
 * their identity (id, namespace, key, slug, name) so new entries may be added, other arrays
 * element by element. Answers the paths that differ.
 */
export function missingFacts(actual: unknown, fact: unknown, path = "$"): string[] {
  if (Array.isArray(fact)) {
    if (!Array.isArray(actual)) return [`${path}: expected a list, got ${JSON.stringify(actual)}`];
    const id = identityOf(fact);
    if (id === undefined) {
      if (actual.length !== fact.length)
        return [`${path}: ${JSON.stringify(actual)} is not ${JSON.stringify(fact)}`];
      return fact.flatMap((f, i) => missingFacts(actual[i], f, `${path}[${i}]`));
    }
    return fact.flatMap((f: Row) => {
      const match = actual.find((a: Row) => a !== null && typeof a === "object" && a[id] === f[id]);
      return match === undefined
        ? [`${path}: no entry with ${id} ${JSON.stringify(f[id])}`]
        : missingFacts(match, f, `${path}[${id}=${JSON.stringify(f[id])}]`);
    });
  }
  if (fact !== null && typeof fact === "object") {
    if (actual === null || typeof actual !== "object")
      return [`${path}: expected an object, got ${JSON.stringify(actual)}`];
    return Object.entries(fact).flatMap(([k, v]) => missingFacts((actual as Row)[k], v, `${path}.${k}`));
  }
  return JSON.stringify(actual) === JSON.stringify(fact)
    ? []
    : [`${path}: ${JSON.stringify(actual)} where the fixture shows ${JSON.stringify(fact)}`];
}

function identityOf(list: unknown[]): string | undefined {
  const first = list[0];
  if (first === null || typeof first !== "object" || Array.isArray(first)) return undefined;
  return ["id", "namespace", "key", "slug", "name"].find((k) =>
    list.every(
      (e) => e !== null && typeof e === "object" && ["string", "number"].includes(typeof (e as Row)[k]),
    ),
  );
}
