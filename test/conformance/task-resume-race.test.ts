// The claim of a task's resume, raced by two stores sharing one database (two replicas): on
// PostgreSQL two stores with their own pools on one schema, so the conditional UPDATEs really run
// at once on different connections; on SQLite two stores on one data dir (two connections to one
// file). Every stale resumable task is claimed by exactly one claimer, its attempt counted once.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { newTask } from "../../host/src/state/store/conformance-tasks.ts";
import { openStore } from "../../host/src/state/store/index.ts";
import { dropSchemas, freshSchemaName } from "../../host/src/state/store/postgres/test-schema.ts";
import type { Store } from "../../host/src/state/store/types.ts";
import { describePg, PG_URL } from "../support/postgres.ts";

const NOW = 1_800_000_000_000;
const TASKS = 12;
const CLAIMERS_PER_STORE = 4;

/** Stale resumable tasks left by replica "dead", then raced by 2 × CLAIMERS_PER_STORE claimers. */
async function race(a: Store, b: Store): Promise<void> {
  for (let i = 0; i < TASKS; i++) {
    await a.tasks.insertTask(newTask(`race-${i}`, { resumable: true }));
    expect(await a.tasks.claimTask(`race-${i}`, "dead", NOW)).not.toBeNull();
  }
  const staleBefore = NOW + 5_000;
  const now = NOW + 6_000;
  const stale = await b.tasks.staleResumableTasks(staleBefore, 2, 100, now);
  expect(stale.map((t) => t.id).sort()).toEqual(Array.from({ length: TASKS }, (_, i) => `race-${i}`).sort());
  const claimers = [a, b].flatMap((store, s) =>
    Array.from({ length: CLAIMERS_PER_STORE }, (_, c) => ({ store, name: `s${s}c${c}` })),
  );
  // Every claimer tries every task, all at once.
  const attempts = await Promise.all(
    claimers.flatMap(({ store, name }) =>
      stale.map(async (t) => ({
        id: t.id,
        name,
        row: await store.tasks.resumeTask(t, staleBefore, name, `resumed on ${name}`, now),
      })),
    ),
  );
  for (const t of stale) {
    const winners = attempts.filter((x) => x.id === t.id && x.row !== null);
    expect(winners, t.id).toHaveLength(1);
    const row = await a.tasks.getTask("a", t.id, now);
    expect(row).toMatchObject({ status: "working", attempts: 1, replica: winners[0]?.name });
  }
  // Both stores see no candidate left (the rows beat at `now` now).
  expect(await a.tasks.staleResumableTasks(staleBefore, 2, 100, now)).toEqual([]);
}

describe("SQLite: two stores on one file race for a task's resume", () => {
  const root = mkdtempSync(join(tmpdir(), "airlock-resume-race-"));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it("lets exactly one claimer resume each task", async () => {
    const a = await openStore({ kind: "sqlite", dataDir: root });
    const b = await openStore({ kind: "sqlite", dataDir: root });
    try {
      await race(a, b);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });
});

describePg("PostgreSQL: two replicas' stores on one schema race for a task's resume", () => {
  const schema = freshSchemaName();
  afterAll(() => dropSchemas(PG_URL, [schema]));

  it("lets exactly one claimer resume each task", async () => {
    const open = () => openStore({ kind: "postgres", url: PG_URL, schema, maxConnections: 4 });
    const a = await open();
    const b = await open();
    try {
      await race(a, b);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });
});
