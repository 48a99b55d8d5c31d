// Test support (imported by tests only): the store a test host opens for its data dir. By
// default SQLite in that data dir, as the embedded host does; with AIRLOCK_TEST_STORE=postgres
// (CI's second pass over test/e2e and test/hostile), a PostgreSQL schema of its own on
// AIRLOCK_TEST_PG, named after the data dir so that every handle a test opens on that data dir
// (the host, a second handle reading rows, a seed) meets the same rows. The run's global
// teardown drops every such schema (dropTestStoreSchemas).
import { createHash } from "node:crypto";
import { resolve } from "node:path";
import pg from "pg";
import type { StoreConfig } from "./index.ts";

export const TEST_STORE_SCHEMA_PREFIX = "airlock_ts_";

/** The PostgreSQL server of the test suites (AIRLOCK_TEST_PG; test/support/postgres.ts re-exports it). */
export const PG_URL = process.env.AIRLOCK_TEST_PG ?? "postgres://postgres@127.0.0.1:5432/test";

/** Which store the host fixtures open: "postgres" when AIRLOCK_TEST_STORE says so. */
export function testStoreKind(): "sqlite" | "postgres" {
  const kind = process.env.AIRLOCK_TEST_STORE ?? "sqlite";
  if (kind === "sqlite" || kind === "postgres") return kind;
  throw new Error(`AIRLOCK_TEST_STORE must be sqlite or postgres (got ${JSON.stringify(kind)})`);
}

/** The store for a test host on `dataDir`: SQLite there, or its own PostgreSQL schema. */
export function testStore(dataDir: string): StoreConfig {
  if (testStoreKind() === "sqlite") return { kind: "sqlite", dataDir };
  const digest = createHash("sha256").update(resolve(dataDir)).digest("hex").slice(0, 20);
  // A small pool: a test may hold several hosts and handles at once on one server.
  return { kind: "postgres", url: PG_URL, schema: `${TEST_STORE_SCHEMA_PREFIX}${digest}`, maxConnections: 4 };
}

/** Drops every schema testStore made (and the task queue's `<schema>_jobs` beside each). */
export async function dropTestStoreSchemas(url = PG_URL): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ name: string }>(
      "SELECT nspname AS name FROM pg_namespace WHERE starts_with(nspname, $1)",
      [TEST_STORE_SCHEMA_PREFIX],
    );
    for (const { name } of rows) await client.query(`DROP SCHEMA IF EXISTS "${name}" CASCADE`);
    return rows.length;
  } finally {
    await client.end();
  }
}

/** The environment that points an `airlock` process given `dataDir` at the same store. */
export function testStoreEnv(dataDir: string): Record<string, string> {
  const store = testStore(dataDir);
  if (store.kind !== "postgres") return {};
  const url = new URL(store.url);
  if (store.schema !== undefined) url.searchParams.set("schema", store.schema);
  return { AIRLOCK_STORE_URL: url.toString() };
}
