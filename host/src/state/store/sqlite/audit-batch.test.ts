// SQLite store options and batched audit: an unknown durability is refused with a code; both
// durabilities keep acknowledged writes across reopen; appendAuditBatch is all or nothing.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { SqliteDurability } from "../index.ts";
import { openStore } from "../index.ts";
import type { AuditInput } from "../types.ts";

const entry = (action: string, at?: string): AuditInput => ({
  agent: "ada",
  plugin: null,
  tool: null,
  conversationId: null,
  kind: "admin",
  action,
  allowed: true,
  success: true,
  error: null,
  durationMs: null,
  details: null,
  ...(at === undefined ? {} : { at }),
});

describe("SQLite durability option and audit batches", () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "airlock-sqlite-batch-"));
  });
  afterEach(async () => rm(dir, { recursive: true, force: true }));

  it("refuses an unknown durability with AIRLOCK_STORE_CONFIG_INVALID", async () => {
    const durability = "sometimes" as unknown as SqliteDurability;
    await expect(openStore({ kind: "sqlite", dataDir: dir, durability })).rejects.toMatchObject({
      code: "AIRLOCK_STORE_CONFIG_INVALID",
    });
  });

  for (const durability of ["normal", "full"] as const) {
    it(`keeps a committed batch across reopen (${durability})`, async () => {
      const store = await openStore({ kind: "sqlite", dataDir: dir, durability });
      await store.appendAuditBatch?.([entry("a"), entry("b"), entry("c")]);
      await store.close();
      const again = await openStore({ kind: "sqlite", dataDir: dir });
      expect((await again.queryAudit({})).map((r) => r.action)).toEqual(["c", "b", "a"]);
      await again.close();
    });
  }

  it("writes nothing of a batch when one entry is invalid", async () => {
    const store = await openStore({ kind: "sqlite", dataDir: dir });
    await expect(store.appendAuditBatch?.([entry("a"), entry("b", "not a time")])).rejects.toBeDefined();
    expect(await store.queryAudit({})).toEqual([]);
    await store.close();
  });
});
