import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { afterAll, describe, expect, it } from "vitest";
import { openStore } from "../index.ts";
import { migrateSqlite, SQLITE_MIGRATIONS } from "./migrations.ts";

const root = mkdtempSync(join(tmpdir(), "airlock-sqlite-migrations-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const tables = (db: DatabaseSync) =>
  (
    db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as Array<{
      name: string;
    }>
  ).map((r) => r.name);

describe("SQLite migrations", () => {
  it("applies nothing of a migration that fails part-way, and says which one", () => {
    const db = new DatabaseSync(":memory:");
    const bad = [
      { version: 1, name: "one", sql: "CREATE TABLE a (x INTEGER)" },
      { version: 2, name: "two", sql: "CREATE TABLE b (x INTEGER); CREATE TABLE oops (" },
    ];
    expect(() => migrateSqlite(db, bad)).toThrow(
      expect.objectContaining({
        code: "AIRLOCK_STORE_MIGRATION_FAILED",
        message: expect.stringContaining("2 (two)"),
      }),
    );
    expect(tables(db)).toEqual(["a", "schema_migrations"]);
    expect(db.prepare("SELECT version FROM schema_migrations").all()).toEqual([{ version: 1 }]);
  });

  it("rewrites a data dir's absolute plugin folders to relative ones and keeps any other path", () => {
    const db = new DatabaseSync(":memory:");
    const before = SQLITE_MIGRATIONS.filter((m) => m.version < 8);
    migrateSqlite(db, before);
    const put = db.prepare(
      "INSERT INTO installed_plugins (namespace, version, manifest, integrity, signer, source, path, installed_at) VALUES (?, ?, '{}', 'sha512-x', NULL, 'file:x', ?, 'now')",
    );
    put.run("weather", "1.0.0", "/old/place/.airlock-data/plugins/weather/1.0.0");
    put.run("weather", "1.1.0-rc.1", "/srv/a/plugins/weather/1.1.0-rc.1");
    put.run("maps", "2.0.0", "/elsewhere/maps"); // not a data dir's version folder: kept
    put.run("notes", "1.0.0", "/srv/a/plugins/weather/1.0.0"); // another namespace's folder: kept
    migrateSqlite(db);
    const rows = db
      .prepare("SELECT namespace, version, path FROM installed_plugins ORDER BY namespace, version")
      .all();
    expect(rows.map((r) => ({ ...r }))).toEqual([
      { namespace: "maps", version: "2.0.0", path: "/elsewhere/maps" },
      { namespace: "notes", version: "1.0.0", path: "/srv/a/plugins/weather/1.0.0" },
      { namespace: "weather", version: "1.0.0", path: "plugins/weather/1.0.0" },
      { namespace: "weather", version: "1.1.0-rc.1", path: "plugins/weather/1.1.0-rc.1" },
    ]);
  });

  it("refuses a database migrated by a newer host", () => {
    const db = new DatabaseSync(":memory:");
    migrateSqlite(db, [
      ...SQLITE_MIGRATIONS,
      { version: 999, name: "future", sql: "CREATE TABLE future (x)" },
    ]);
    expect(() => migrateSqlite(db)).toThrow(
      expect.objectContaining({ code: "AIRLOCK_STORE_SCHEMA_TOO_NEW" }),
    );
  });

  it("reads a knowledge level it does not know as none after reopening", async () => {
    const dataDir = join(root, "levels");
    const store = await openStore({ kind: "sqlite", dataDir });
    await store.setKnowledgeLevel("a", "manage");
    await store.close();
    const db = new DatabaseSync(join(dataDir, "airlock.db"));
    db.prepare("UPDATE agents SET knowledge_level = 'superuser' WHERE slug = 'a'").run();
    db.close();
    const reopened = await openStore({ kind: "sqlite", dataDir });
    expect((await reopened.getAgent("a"))?.knowledgeLevel).toBe("none");
    await reopened.close();
  });

  it("refuses an unusable data dir with AIRLOCK_STORE_OPEN_FAILED", async () => {
    const file = join(root, "a-file");
    writeFileSync(file, "not a directory");
    await expect(openStore({ kind: "sqlite", dataDir: join(file, "data") })).rejects.toMatchObject({
      code: "AIRLOCK_STORE_OPEN_FAILED",
    });
    await expect(openStore({ kind: "mongo" } as never)).rejects.toMatchObject({
      code: "AIRLOCK_STORE_CONFIG_INVALID",
    });
  });
});
