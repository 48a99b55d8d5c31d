// Hostile, through the real host (workers sandbox, one shared worker, SQLite, installed
// tarballs): a plugin whose tool burns CPU until its limit ends the call, sharing the worker with
// another plugin. After its first CPU-limit end the host records the CPU move (the plugin
// listing's tier: own, reason cpu_limit), audits it with the code and the rule, and keeps serving
// both plugins (the burner from its own low-priority worker); the operator's `shared` takes it
// back. The canary secret appears nowhere.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AirlockHost } from "../../host/src/contracts/host.ts";
import { createHost } from "../../host/src/host.ts";
import { testStore } from "../../host/src/state/store/test-store.ts";
import { KIT, kitTarball } from "../../host/src/surfaces/http/test-support.ts";
import { CANARY } from "../support/sandbox-hostile.ts";

const BURNER = {
  namespace: "burner",
  tools: [
    {
      name: "burn",
      description: "Burns CPU until the CPU limit ends it.",
      annotations: { readOnlyHint: true },
      code: "async () => { for (;;) {} }",
    },
    {
      name: "fine",
      description: "Answers.",
      annotations: { readOnlyHint: true },
      code: 'async () => "fine"',
    },
  ],
  limits: { cpuMs: 100 },
};

const dataDir = mkdtempSync(join(tmpdir(), "airlock-host-cpu-share-"));
const logs: string[] = [];
let host: AirlockHost;

const call = async (tool: string) => {
  const outcome = await host.callTool("alpha", tool, tool === "kit__echo" ? { text: "hi" } : {});
  return { code: outcome.errorCode, content: outcome.result.content };
};
const workerOf = async (namespace: string) =>
  (await host.plugins.list()).find((p) => p.namespace === namespace)?.worker;
const healthy = async () => {
  expect(await call("kit__echo")).toEqual({ code: undefined, content: [{ type: "text", text: "echo: hi" }] });
  expect(await call("burner__fine")).toEqual({ code: undefined, content: [{ type: "text", text: "fine" }] });
  const everything = JSON.stringify({ logs, audit: await host.queryAudit({}) });
  expect(everything).not.toContain(CANARY);
};

beforeAll(async () => {
  host = await createHost({
    dataDir,
    store: testStore(dataDir),
    sandbox: { mode: "workers", workers: 1 },
    onInternalError: (what, error) =>
      logs.push(`${what}: ${error instanceof Error ? error.message : String(error)}`),
  });
  await host.plugins.installTarball(kitTarball(KIT), "file:kit.tgz", { allowUnsigned: true });
  await host.plugins.installTarball(kitTarball(BURNER), "file:burner.tgz", { allowUnsigned: true });
  await host.createAgent("alpha");
  await host.setToolsEnabled("alpha", { "kit:echo": true, "burner:burn": true, "burner:fine": true });
  await host.setSecrets("alpha", { api_key: CANARY });
});
afterAll(async () => {
  await host.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe("a plugin whose calls its CPU limit ends, through the host", { timeout: 60_000 }, () => {
  it("is moved into a low-priority worker of its own after its first CPU-limit end, and audited", async () => {
    await healthy(); // both loaded in the one shared worker
    expect(await workerOf("burner")).toEqual({ tier: "shared", reason: null, since: null, details: null });
    expect((await call("burner__burn")).code).toBe("AIRLOCK_SANDBOX_CPU_LIMIT");
    const details = { pluginKey: "burner@1.0.0", worker: 0, cpuLimitEnds: 1, windowMs: 60_000, priority: 10 };
    await expect
      .poll(async () => (await host.queryAudit({ plugin: "burner", kind: "admin" })).map((r) => r.action))
      .toEqual(["plugin.moved_for_cpu"]);
    const rows = await host.queryAudit({ plugin: "burner", kind: "admin" });
    expect(rows).toEqual([
      expect.objectContaining({
        allowed: false,
        success: false,
        error: "AIRLOCK_SANDBOX_CPU_LIMIT",
        details,
      }),
    ]);
    expect(await workerOf("burner")).toMatchObject({ tier: "own", reason: "cpu_limit", details });
    expect(await workerOf("kit")).toMatchObject({ tier: "shared" });
    await healthy();
    // its later burns run in its own worker: counted and audited no more
    expect((await call("burner__burn")).code).toBe("AIRLOCK_SANDBOX_CPU_LIMIT");
    await healthy();
    expect(
      (await host.queryAudit({ plugin: "burner", kind: "admin" })).filter(
        (r) => r.action === "plugin.moved_for_cpu",
      ),
    ).toHaveLength(1);
  });

  it("goes back to the shared worker when the operator says so", async () => {
    expect(await host.setPluginWorker("burner", "shared")).toMatchObject({ tier: "shared", reason: null });
    expect(await workerOf("burner")).toMatchObject({ tier: "shared" });
    await healthy();
  });
});
