// A host on SQLite writes capability audit entries through its store's audit journal (the
// journal's own tests show an entry is durable once journaled and replayed after a kill): the
// host has this process's journal open while it runs, a query sees the entries committed in
// order, and closing the host leaves no journal behind.
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { JOURNAL_DIR } from "../../state/store/sqlite/audit-journal.ts";
import type { FixturePlugin } from "./test-fixtures.ts";
import { openTestHost, type TestHost } from "./test-host.ts";

const plugin: FixturePlugin = {
  namespace: "journal",
  tools: [
    {
      name: "touch",
      code: "async (input, ctx) => { await ctx.state.set('k', 1); return String(await ctx.state.get('k')); }",
      annotations: { readOnlyHint: true },
    },
  ],
};

describe("audit journal in a host", () => {
  let t: TestHost;
  beforeAll(async () => {
    t = await openTestHost([plugin]);
    await t.host.createAgent("ada");
    await t.host.setToolsEnabled("ada", { "journal:touch": true });
  });
  afterAll(async () => t.close());

  it("journals capability entries while it runs, commits them in order, and leaves no journal after close", async () => {
    const dir = join(t.dir, JOURNAL_DIR);
    const outcome = await t.host.callTool("ada", "journal:touch", {});
    expect(outcome.result.isError).not.toBe(true);
    const journals = readdirSync(dir);
    expect(journals).toHaveLength(1);
    expect(journals[0]).toMatch(new RegExp(`^${process.pid}-[0-9a-f]+\\.0\\.jsonl$`));
    const rows = await t.host.queryAudit({ kind: "capability", limit: 10 });
    const actions = rows.map((r) => r.action).reverse();
    expect(actions).toEqual(["state.set", "state.get"]);
    await t.host.close();
    expect(readdirSync(dir)).toEqual([]);
  });
});
