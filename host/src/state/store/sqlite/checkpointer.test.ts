// WAL checkpoints happen on the checkpointer's thread: the store's own connection checkpoints only
// past BACKSTOP_PAGES, yet committed pages reach the database file while the WAL is far below it.
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { BACKSTOP_PAGES } from "./checkpointer.ts";
import { openSqliteStore, SQLITE_FILE } from "./open.ts";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe("SQLite WAL checkpointer", () => {
  it("copies committed pages into the database from its own thread, far below the backstop", async () => {
    const dir = mkdtempSync(join(tmpdir(), "airlock-ckpt-"));
    dirs.push(dir);
    const store = await openSqliteStore(dir);
    const file = join(dir, SQLITE_FILE);
    const before = statSync(file).size;
    // ≈ 2 MiB of rows: ≈ 500 pages, a twentieth of what the store's connection waits for
    await store.ensureAgent("a");
    const value = JSON.stringify("x".repeat(900));
    for (let i = 0; i < 2000; i++) await store.setState("a", "c", "p", `k${i}`, value, 1 << 30);
    expect(BACKSTOP_PAGES * 4096).toBeGreaterThan(10 * 2 * 2 ** 20); // ten times what was written
    const deadline = Date.now() + 10_000;
    while (statSync(file).size < before + (1 << 20) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(statSync(file).size).toBeGreaterThanOrEqual(before + (1 << 20));
    // the rows are all there, whichever file holds them
    expect(await store.listStateKeys("a", "c", "p")).toHaveLength(2000);
    // close() ends the checkpointer's thread (a close left waiting on it fails by the test's
    // timeout: how long it takes is a benchmark, not a gate); the store reopens with every row
    await store.close();
    const reopened = await openSqliteStore(dir);
    try {
      expect(await reopened.listStateKeys("a", "c", "p")).toHaveLength(2000);
    } finally {
      await reopened.close();
    }
  });
});
