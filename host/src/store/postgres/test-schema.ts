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
    for (const s of schemas) await client.query(`DROP SCHEMA IF EXISTS "${s}" CASCADE`);
  } finally {
    await client.end();
  }
}
