import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { describePg, PG_URL } from "../../../../../test/support/postgres.ts";
import { openStore } from "../index.ts";
import { migratePostgres, POSTGRES_MIGRATIONS } from "./migrations.ts";
import { dropSchemas, freshSchemaName } from "./test-schema.ts";

const schemas: string[] = [];
const fresh = () => {
  const s = freshSchemaName();
  schemas.push(s);
  return s;
};
afterAll(() => dropSchemas(PG_URL, schemas));

async function withClient<T>(schema: string, fn: (c: pg.PoolClient) => Promise<T>): Promise<T> {
  const pool = new pg.Pool({ connectionString: PG_URL, options: `-c search_path=${schema}`, max: 1 });
  const client = await pool.connect();
  try {
    return await fn(client);
  } finally {
    client.release();
    await pool.end();
  }
}

describePg("PostgreSQL migrations", () => {
  it("applies nothing when a pending migration fails, and says which one", async () => {
    const schema = fresh();
    const bad = [
      { version: 1, name: "one", sql: "CREATE TABLE a (x integer)" },
      { version: 2, name: "two", sql: "CREATE TABLE b (x integer); CREATE TABLE oops (" },
    ];
    await withClient(schema, async (c) => {
      await expect(migratePostgres(c, schema, bad)).rejects.toMatchObject({
        code: "AIRLOCK_STORE_MIGRATION_FAILED",
        message: expect.stringContaining("2 (two)"),
      });
      const r = await c.query("SELECT to_regclass($1) AS t", [`${schema}.a`]);
      expect(r.rows[0].t).toBeNull();
    });
  });

  it("gives a schema at version 7 the audit kind index the console's kind filter reads", async () => {
    const schema = fresh();
    await withClient(schema, (c) => migratePostgres(c, schema, POSTGRES_MIGRATIONS.slice(0, 7)));
    const store = await openStore({ kind: "postgres", url: PG_URL, schema });
    await store.close();
    const indexes = await withClient(
      schema,
      async (c) =>
        (
          await c.query(
            "SELECT indexdef FROM pg_indexes WHERE schemaname = $1 AND indexname = 'audit_kind'",
            [schema],
          )
        ).rows,
    );
    expect(indexes.map((r) => String(r.indexdef))).toEqual([expect.stringMatching(/\(kind, id\)$/)]);
  });

  it("rewrites a data dir's absolute plugin folders to relative ones and keeps any other path", async () => {
    const schema = fresh();
    const rows = await withClient(schema, async (c) => {
      await migratePostgres(
        c,
        schema,
        POSTGRES_MIGRATIONS.filter((m) => m.version < 9),
      );
      const put = (ns: string, version: string, path: string) =>
        c.query(
          "INSERT INTO installed_plugins (namespace, version, manifest, integrity, signer, source, path, installed_at) VALUES ($1, $2, '{}', 'sha512-x', NULL, 'file:x', $3, 'now')",
          [ns, version, path],
        );
      await put("weather", "1.0.0", "/var/lib/airlock-a/plugins/weather/1.0.0");
      await put("maps", "2.0.0", "/elsewhere/maps");
      await put("notes", "1.0.0", "/srv/a/plugins/weather/1.0.0");
      await migratePostgres(c, schema);
      return (
        await c.query('SELECT namespace, version, path FROM installed_plugins ORDER BY namespace COLLATE "C"')
      ).rows;
    });
    expect(rows).toEqual([
      { namespace: "maps", version: "2.0.0", path: "/elsewhere/maps" },
      { namespace: "notes", version: "1.0.0", path: "/srv/a/plugins/weather/1.0.0" },
      { namespace: "weather", version: "1.0.0", path: "plugins/weather/1.0.0" },
    ]);
  });

  it("refuses a database migrated by a newer host", async () => {
    const schema = fresh();
    await withClient(schema, (c) =>
      migratePostgres(c, schema, [...POSTGRES_MIGRATIONS, { version: 999, name: "future", sql: "SELECT 1" }]),
    );
    await expect(openStore({ kind: "postgres", url: PG_URL, schema })).rejects.toMatchObject({
      code: "AIRLOCK_STORE_SCHEMA_TOO_NEW",
    });
  });
});

// These two need no server (a bad schema name is refused before connecting; port 1 answers
// nothing), so they run whether PostgreSQL is there or not.
describe("PostgreSQL store options", () => {
  it("refuses a schema name that is not a plain lowercase identifier", async () => {
    await expect(
      openStore({ kind: "postgres", url: PG_URL, schema: 'x"; DROP SCHEMA public; --' }),
    ).rejects.toMatchObject({ code: "AIRLOCK_STORE_CONFIG_INVALID" });
  });

  it("reports an unreachable server as AIRLOCK_STORE_OPEN_FAILED without the password", async () => {
    const err = await openStore({ kind: "postgres", url: "postgres://u:hunter2pw@127.0.0.1:1/none" }).catch(
      (e) => e,
    );
    expect(err).toMatchObject({ code: "AIRLOCK_STORE_OPEN_FAILED" });
    expect(String(err.message)).not.toContain("hunter2pw");
  });
});
