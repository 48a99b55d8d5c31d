// The switch of the PostgreSQL pass (AIRLOCK_TEST_STORE, host/src/state/store/test-store.ts):
// the host fixtures keep their rows where it says, and nowhere else. This file runs in both
// passes of `npm test`, so each pass checks its own store.
import { existsSync } from "node:fs";
import { join } from "node:path";
import pg from "pg";
import { expect, test } from "vitest";
import { openTestHost } from "../../host/src/engine/pipeline/test-host.ts";
import { testStore, testStoreEnv, testStoreKind } from "../../host/src/state/store/test-store.ts";

test(`the host fixtures keep their rows in ${testStoreKind()}`, async () => {
  const t = await openTestHost([]);
  try {
    await t.host.createAgent("where-am-i");
    const store = testStore(t.dir);
    if (store.kind === "sqlite") {
      expect(existsSync(join(t.dir, "airlock.db"))).toBe(true);
      expect(testStoreEnv(t.dir)).toEqual({});
      return;
    }
    // No SQLite store in the data dir, and the agent's row in the schema named after it.
    expect(existsSync(join(t.dir, "airlock.db"))).toBe(false);
    expect(testStoreEnv(t.dir).AIRLOCK_STORE_URL).toContain(`schema=${store.schema}`);
    const client = new pg.Client({ connectionString: store.url });
    await client.connect();
    try {
      const { rows } = await client.query(
        `SELECT count(*)::int AS n FROM "${store.schema}".agents WHERE slug = $1`,
        ["where-am-i"],
      );
      expect(rows[0]?.n).toBe(1);
    } finally {
      await client.end();
    }
  } finally {
    await t.close();
  }
});
