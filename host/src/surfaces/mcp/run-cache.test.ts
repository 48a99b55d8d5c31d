import { afterAll, beforeAll, expect, test } from "vitest";
import { createSurfaceFixture, type SurfaceFixture } from "../http/test-support.ts";
import { RunCache } from "./run-cache.ts";

let f: SurfaceFixture;
beforeAll(async () => {
  f = await createSurfaceFixture();
});
afterAll(async () => {
  await f.close();
});

test("reuses a run per agent and conversation until the agent's tools change", async () => {
  const runs = new RunCache(f.host);
  const first = await runs.get({ agent: "alpha", conversationId: "c1" });
  expect(await runs.get({ agent: "alpha", conversationId: "c1" })).toBe(first);
  expect(await runs.get({ agent: "alpha", conversationId: "c2" })).not.toBe(first);
  await f.host.setToolsEnabled("beta", { "kit:echo": true });
  expect(await runs.get({ agent: "alpha", conversationId: "c1" })).toBe(first); // another agent's change
  await f.host.setToolsEnabled("alpha", { "kit:picture": false });
  const after = await runs.get({ agent: "alpha", conversationId: "c1" });
  expect(after).not.toBe(first);
  expect(after.tools().map((t) => t.id)).not.toContain("kit:picture");
  await f.host.setToolsEnabled("alpha", { "kit:picture": true });
  runs.close();
});

test("keeps no run whose start failed, and keeps at most its bound", async () => {
  const runs = new RunCache(f.host, 2);
  await expect(runs.get({ agent: "nobody" })).rejects.toMatchObject({ code: "AIRLOCK_RUN_AGENT_NOT_FOUND" });
  const a = await runs.get({ agent: "alpha", conversationId: "a" });
  await runs.get({ agent: "alpha", conversationId: "b" });
  await runs.get({ agent: "alpha", conversationId: "c" });
  expect(await runs.get({ agent: "alpha", conversationId: "a" })).not.toBe(a); // the oldest was dropped
  runs.close();
});
