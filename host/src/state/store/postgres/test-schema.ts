// Test helper: a fresh PostgreSQL schema per suite run, dropped afterwards, so PostgreSQL
// suites never see each other's rows and leave nothing behind.
import { randomBytes } from "node:crypto";
import pg from "pg";

export function freshSchemaName(prefix = "airlock_t"): string {
  return `${prefix}_${randomBytes(6).toString("hex")}`;
}

export async function dropSchemas(url: string, schemas: readonly string[]): Promise<void> {
  if (schemas.length === 0) return;
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    // `<schema>_jobs`: the task queue's own schema (pg-boss, host/src/engine/tasks/pg-boss-queue.ts).
    for (const s of schemas) await client.query(`DROP SCHEMA IF EXISTS "${s}", "${s}_jobs" CASCADE`);
  } finally {
    await client.end();
  }
}

/** Empties every table of `schema` but schema_migrations (test isolation within one schema). */
export async function truncateSchema(url: string, schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ tablename: string }>(
      "SELECT tablename FROM pg_tables WHERE schemaname = $1 AND tablename <> 'schema_migrations'",
      [schema],
    );
    if (rows.length === 0) return;
    // DELETE rather than TRUNCATE: on a handful of rows it is an order of magnitude faster.
    await client.query(rows.map((r) => `DELETE FROM "${schema}"."${r.tablename}";`).join(" "));
  } finally {
    await client.end();
  }
}
