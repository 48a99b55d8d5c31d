// Fills a store's audit trail for the growth rows in bulk, one SQL statement per batch of rows
// (a recursive CTE in SQLite, generate_series in PostgreSQL), straight into the table the host
// reads: audit.db's `audit` (store/sqlite/audit-file.ts) or the schema's `audit`
// (store/postgres/migrations.ts). Appending 10^6 entries through the host's audit writer would
// take minutes and measure the writer, which row 5 does.
// Row i (from 1): 20 agents (`agent-<i % 20>`), 4 plugins, 5 tools a plugin, kinds tool 50 %,
// capability 42 %, admin 5 % (`i % 20 = 0`), plugin 3 %, one second apart from FILL_EPOCH. Every
// filter the growth row asks for holds 5 % of the rows, so at 10^4 each fills its page of 500 and
// the curve compares pages of one size.
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import pg from "pg";

/** The first filled row's time, as seconds since 1970 (2026-01-01T00:00:00Z). */
export const FILL_EPOCH = 1_767_225_600;

/** The ISO time of filled row i, as the filler writes it (and `at` compares as text). */
export const fillTime = (i: number): string => new Date((FILL_EPOCH + i) * 1000).toISOString();

const COLUMNS =
  "at, agent, plugin, tool, conversation_id, kind, action, allowed, success, error, duration_ms, details";

const kind = `CASE WHEN i % 20 = 0 THEN 'admin' WHEN i % 25 = 0 THEN 'plugin' WHEN i % 2 = 0 THEN 'capability' ELSE 'tool' END`;

/** Rows `from`..`to` (inclusive) into `<dataDir>/audit.db`, in one transaction. */
export function fillSqliteAudit(dataDir: string, from: number, to: number): void {
  const db = new DatabaseSync(join(dataDir, "audit.db"), { timeout: 60_000 });
  try {
    db.exec("BEGIN IMMEDIATE");
    db.prepare(
      `WITH RECURSIVE s(i) AS (SELECT CAST(? AS INTEGER) UNION ALL SELECT i + 1 FROM s WHERE i < ?)
       INSERT INTO audit (${COLUMNS})
       SELECT strftime('%Y-%m-%dT%H:%M:%fZ', ${FILL_EPOCH} + i, 'unixepoch'), 'agent-' || (i % 20),
         'plug-' || (i % 4), 't' || (i % 5), 'c' || (i % 1000), ${kind}, 'bench.fill',
         i % 97 <> 0, 1, NULL, (i % 50) * 0.5, '{"input":{"text":"hi"},"n":' || i || '}'
       FROM s`,
    ).run(from, to);
    db.exec("COMMIT");
  } finally {
    db.close();
  }
}

/** Rows `from`..`to` (inclusive) into `<schema>.audit`. */
export async function fillPostgresAudit(
  url: string,
  schema: string,
  from: number,
  to: number,
): Promise<void> {
  const client = new pg.Client({ connectionString: url, options: `-c search_path=${schema}` });
  await client.connect();
  try {
    await client.query(
      `INSERT INTO audit (${COLUMNS})
       SELECT to_char(to_timestamp(${FILL_EPOCH} + i) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
         'agent-' || (i % 20), 'plug-' || (i % 4), 't' || (i % 5), 'c' || (i % 1000), ${kind}, 'bench.fill',
         i % 97 <> 0, true, NULL, (i % 50) * 0.5, jsonb_build_object('input', jsonb_build_object('text', 'hi'), 'n', i)
       FROM generate_series($1::bigint, $2::bigint) AS i`,
      [from, to],
    );
    await client.query("ANALYZE audit");
  } finally {
    await client.end();
  }
}
