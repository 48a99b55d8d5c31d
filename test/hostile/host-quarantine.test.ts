// Hostile, through the real host (workers sandbox, one shared worker, SQLite, installed
// tarballs): a plugin whose tool makes V8 abort the worker process. The host records the
// quarantine (store, audit row, `plugin.quarantined` event, the plugin listing), the plugin
// keeps being served from a worker of its own, the other plugin's calls succeed, and the tier
// survives a restart. The operator's tier (`setPluginWorker`, `airlock plugins worker`) is
// stored, audited and refused with codes for an unknown plugin or tier.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AirlockHost, HostEventMap } from "../../host/src/contracts/host.ts";
import { createHost, openStore } from "../../host/src/host.ts";
import { testStore, testStoreEnv } from "../../host/src/state/store/test-store.ts";
import { pluginsCommands } from "../../host/src/surfaces/cli/commands/plugins.ts";
import { runCli } from "../../host/src/surfaces/cli/main.ts";
import { KIT, kitTarball } from "../../host/src/surfaces/http/test-support.ts";
import { CANARY } from "../support/sandbox-hostile.ts";

const CRASHER = {
  namespace: "crasher",
  tools: [
    {
      name: "boom",
      description: "Grows an object in dictionary mode until V8 aborts the process.",
      annotations: { readOnlyHint: true },
      code: 'async () => { const grown = {}; for (let i = 0; ; i++) grown["k" + i] = "x"; }',
    },
    {
      name: "fine",
      description: "Answers.",
      annotations: { readOnlyHint: true },
      code: 'async () => "fine"',
    },
  ],
  limits: { memoryMb: 32, cpuMs: 20_000, wallMs: 25_000 },
};

const dataDir = mkdtempSync(join(tmpdir(), "airlock-host-quarantine-"));
const logs: string[] = [];
let host: AirlockHost;
const quarantines: Array<HostEventMap["plugin.quarantined"]> = [];

async function start(): Promise<AirlockHost> {
  host = await createHost({
    dataDir,
    store: testStore(dataDir),
    sandbox: { mode: "workers", workers: 1 },
    // generous CPU so that on a loaded machine the abort, not the CPU limit, ends the call
    limits: { cpuMs: 20_000 },
    onInternalError: (what, error) =>
      logs.push(`${what}: ${error instanceof Error ? error.message : String(error)}`),
  });
  host.on("plugin.quarantined", (event) => quarantines.push(event));
  return host;
}

const call = async (tool: string) => {
  const outcome = await host.callTool("alpha", tool, tool === "kit__echo" ? { text: "hi" } : {});
  return { code: outcome.errorCode, content: outcome.result.content };
};
const workerOf = async (namespace: string) =>
  (await host.plugins.list()).find((p) => p.namespace === namespace)?.worker;
const healthy = async () => {
  expect(await call("kit__echo")).toEqual({ code: undefined, content: [{ type: "text", text: "echo: hi" }] });
  expect(await call("crasher__fine")).toEqual({ code: undefined, content: [{ type: "text", text: "fine" }] });
  const everything = JSON.stringify({ logs, audit: await host.queryAudit({}) });
  expect(everything).not.toContain(CANARY);
};

beforeAll(async () => {
  await start();
  await host.plugins.installTarball(kitTarball(KIT), "file:kit.tgz", { allowUnsigned: true });
  await host.plugins.installTarball(kitTarball(CRASHER), "file:crasher.tgz", { allowUnsigned: true });
  await host.createAgent("alpha");
  await host.setToolsEnabled("alpha", {
    "kit:echo": true,
    "kit:keyed": true,
    "crasher:boom": true,
    "crasher:fine": true,
  });
  await host.setSecrets("alpha", { api_key: CANARY });
});
afterAll(async () => {
  await host.close();
  rmSync(dataDir, { recursive: true, force: true });
});

// each abort can take seconds of GC thrashing on a loaded machine
describe("a plugin that aborts its worker, through the host", { timeout: 120_000 }, () => {
  it("is quarantined into a worker of its own: stored, audited, raised and listed", async () => {
    await healthy(); // both loaded in the one shared worker
    expect(await workerOf("crasher")).toEqual({ tier: "shared", reason: null, since: null, details: null });
    const crashed = await call("crasher__boom");
    expect(crashed.code).toBe("AIRLOCK_SANDBOX_WORKER_CRASHED");
    await expect.poll(() => quarantines.length, { timeout: 10_000 }).toBe(1);
    // V8's abort (SIGABRT), or, when the abort's GC thrashing outlasts the supervisor's pings on a
    // loaded machine, the supervisor's kill of the unresponsive worker (SIGKILL): both quarantine
    const signal = quarantines[0]?.signal;
    expect(["SIGABRT", "SIGKILL"]).toContain(signal);
    const details = { pluginKey: "crasher@1.0.0", worker: 0, signal };
    expect(quarantines[0]).toEqual({ namespace: "crasher", ...details });
    expect(await workerOf("crasher")).toMatchObject({ tier: "own", reason: "quarantine", details });
    expect(await workerOf("kit")).toMatchObject({ tier: "shared" });
    const rows = await host.queryAudit({ plugin: "crasher", kind: "admin" });
    expect(rows.filter((r) => r.action === "plugin.quarantined")).toEqual([
      expect.objectContaining({
        allowed: false,
        success: false,
        error: "AIRLOCK_SANDBOX_WORKER_CRASHED",
        details,
      }),
    ]);
    // the death itself, audited with the plugin it was running and its cause
    expect(rows.filter((r) => r.action === "sandbox.worker_died")).toEqual([
      expect.objectContaining({
        allowed: false,
        error: "AIRLOCK_SANDBOX_WORKER_CRASHED",
        details: expect.objectContaining({
          worker: 0,
          pluginKey: "crasher@1.0.0",
          running: ["crasher@1.0.0"],
        }),
      }),
    ]);
    // The host has no public store: read the row through a handle of our own (as another process would).
    const store = await openStore(testStore(dataDir));
    try {
      expect((await store.listPluginWorkers()).map((r) => [r.namespace, r.reason])).toEqual([
        ["crasher", "quarantine"],
      ]);
    } finally {
      await store.close();
    }
    await healthy();
  });

  it("fails only its own calls when it aborts again, and stays alone after a restart", async () => {
    expect((await call("crasher__boom")).code).toBe("AIRLOCK_SANDBOX_WORKER_CRASHED");
    await healthy();
    expect(quarantines).toHaveLength(1);
    await host.close();
    await start();
    expect(await workerOf("crasher")).toMatchObject({ tier: "own", reason: "quarantine" });
    await healthy();
    expect((await call("crasher__boom")).code).toBe("AIRLOCK_SANDBOX_WORKER_CRASHED");
    expect(quarantines).toHaveLength(1); // loaded alone from the start: nothing to move
    await healthy();
  });
});

describe("the operator's worker tier", () => {
  it("sets and clears a tier, audited, and refuses an unknown plugin or tier with codes", async () => {
    expect(await host.setPluginWorker("kit", "own")).toMatchObject({ tier: "own", reason: "operator" });
    await healthy();
    expect(await host.setPluginWorker("crasher", "shared")).toMatchObject({ tier: "shared", reason: null });
    expect(await workerOf("crasher")).toMatchObject({ tier: "shared" });
    await healthy();
    await expect(host.setPluginWorker("nothere", "own")).rejects.toMatchObject({
      code: "AIRLOCK_INSTALL_NOT_INSTALLED",
    });
    await expect(host.setPluginWorker("kit", "alone" as "own")).rejects.toMatchObject({
      code: "AIRLOCK_PLUGIN_WORKER_TIER_INVALID",
    });
    const rows = (await host.queryAudit({ kind: "admin" })).filter((r) => r.action === "plugin.worker");
    expect(rows.map((r) => [r.plugin, r.success, r.error])).toEqual([
      ["kit", false, "AIRLOCK_PLUGIN_WORKER_TIER_INVALID"],
      ["nothere", false, "AIRLOCK_INSTALL_NOT_INSTALLED"],
      ["crasher", true, null],
      ["kit", true, null],
    ]);
    await healthy();
  });

  it("is set with `airlock plugins worker` and shown by `airlock plugins list`", async () => {
    await host.close();
    const out: string[] = [];
    const err: string[] = [];
    const io = {
      stdout: (t: string) => void out.push(t),
      stderr: (t: string) => void err.push(t),
      env: testStoreEnv(dataDir),
      cwd: dataDir,
    };
    const run = (...argv: string[]) => runCli([...argv, "--data-dir", dataDir], io, pluginsCommands);
    expect(await run("plugins", "worker", "crasher", "own")).toBe(0);
    expect(out.join("")).toContain("crasher runs in a sandbox worker of its own.");
    out.length = 0;
    expect(await run("plugins", "list")).toBe(0);
    expect(out.join("")).toMatch(/^crasher@1\.0\.0 .* own worker$/m);
    expect(await run("plugins", "worker", "crasher", "alone")).toBe(2);
    expect(err.join("")).toContain("AIRLOCK_CLI_USAGE");
    await start();
  });
});
