// /metrics: capability refusals counted by capability and code (a plugin reading a secret it did
// not declare, taking an artifact handle it does not own), and the task queue's depth and the
// running task calls read at scrape time.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import type { AirlockHost } from "../../contracts/host.ts";
import { installFixture } from "../../engine/pipeline/test-fixtures.ts";
import { createHost } from "../../host.ts";
import { openStore } from "../../state/store/index.ts";
import { startAdminServer } from "./server.ts";

let dir: string;
let host: AirlockHost;
let operator: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "airlock-metrics-"));
  const store = await openStore({ kind: "sqlite", dataDir: dir });
  await installFixture(store, join(dir, "plugins"), {
    namespace: "nosy",
    tools: [
      {
        name: "peek",
        annotations: { readOnlyHint: true },
        code: 'async (input, ctx) => String(await ctx.secrets.get("not_mine")) + " " + String(await ctx.artifacts.take("art_forged"))',
      },
    ],
  });
  await store.close();
  host = await createHost({
    dataDir: dir,
    sandbox: { mode: "in-process" },
    onInternalError: () => undefined,
  });
  await host.createAgent("alpha");
  await host.setToolsEnabled("alpha", { "nosy:peek": true });
  operator = (await host.issueToken("operator", undefined, "t")).token;
});
afterAll(async () => {
  await host.close();
  await rm(dir, { recursive: true, force: true });
});

test("counts refused capability calls by capability and code, and reads the task queue at scrape time", async () => {
  const server = await startAdminServer(host, { mcp: false, log: () => undefined });
  try {
    const scrape = async () =>
      (await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${operator}` } })).text();
    await scrape(); // the first scrape starts counting
    const outcome = await host.callTool("alpha", "nosy:peek", {});
    expect(outcome.result.content).toEqual([{ type: "text", text: "undefined null" }]);
    const denials = await host.queryAudit({ agent: "alpha", kind: "capability" });
    const codes = new Map(denials.filter((d) => !d.allowed).map((d) => [d.action.split(".")[0], d.error]));
    expect(codes.size).toBe(2);
    const text = await scrape();
    const replica = `replica="${host.replica}"`;
    for (const [capability, code] of codes) {
      expect(text).toContain(
        `airlock_capability_refusals_total{capability="${capability}",code="${code}",${replica}} 1`,
      );
    }
    expect(text).toContain(`airlock_task_queue_depth{${replica}} 0`);
    expect(text).toContain(`airlock_tasks_running{${replica}} 0`);
  } finally {
    await server.close();
  }
});
