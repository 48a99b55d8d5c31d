// A host process killed (SIGKILL) in the middle of an install: after staging, and after the
// rename but before the store record. The previous version stays active, and the next start's
// recovery leaves no stray staging, orphan version directory or stale lock behind.
import { fork } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createPluginLifecycle } from "@airlock/host/engine/install/index.ts";
import { openStore } from "@airlock/host/state/store/index.ts";
import { samplePluginTarball } from "@airlock/sdk/package";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { tree } from "../support/fs-tree.ts";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "airlock-crash-"));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

async function crashAt(
  point: "afterStaged" | "afterCommitted",
  dataDir: string,
  tarball: string,
): Promise<string> {
  const child = fork(join(import.meta.dirname, "tarball-crash-child.ts"), [dataDir, tarball, point], {
    execArgv: ["--no-node-snapshot"],
    stdio: ["ignore", "ignore", "inherit", "ipc"],
  });
  const where = await new Promise<string>((resolve, reject) => {
    child.once("message", (m: { at: string; where?: string }) =>
      m.at === point ? resolve(m.where ?? "") : reject(new Error(`child reached ${m.at}`)),
    );
    child.once("exit", (code) => reject(new Error(`child exited (${code}) before ${point}`)));
  });
  const exited = new Promise<NodeJS.Signals | null>((resolve) =>
    child.once("exit", (_code, signal) => resolve(signal)),
  );
  child.kill("SIGKILL");
  expect(await exited).toBe("SIGKILL");
  return where;
}

for (const point of ["afterStaged", "afterCommitted"] as const) {
  describe(`a host killed ${point === "afterStaged" ? "after staging" : "after the rename, before the record"}`, () => {
    it("keeps the previous version active and cleans up on the next start", async () => {
      const dataDir = join(dir, "data");
      const store = await openStore({ kind: "sqlite", dataDir });
      const options = {
        store,
        dataDir,
        trust: { allowUnsigned: ["file"] },
        hostVersion: "0.1.0",
        supportedSdk: "^1.0.0",
      };
      const v1 = join(dir, "v1.tgz");
      const v2 = join(dir, "v2.tgz");
      writeFileSync(v1, samplePluginTarball({ namespace: "weather", version: "1.0.0" }));
      writeFileSync(v2, samplePluginTarball({ namespace: "weather", version: "2.0.0" }));
      await createPluginLifecycle(options).install(v1);

      await crashAt(point, dataDir, v2);
      const leftovers = tree(join(dataDir, "plugins"));
      expect(leftovers).toContain(".locks/weather.lock");
      if (point === "afterStaged")
        expect(leftovers.some((p) => p.startsWith(".staging/weather@2.0.0."))).toBe(true);
      else expect(leftovers).toContain("weather/2.0.0/index.js");
      expect((await store.getActivation("weather"))?.active).toBe("1.0.0");

      const restarted = createPluginLifecycle(options);
      const recovery = await restarted.recover();
      expect(recovery.removed.length).toBeGreaterThan(0);
      expect(tree(join(dataDir, "plugins"))).toEqual([
        ".locks",
        ".staging",
        "weather",
        "weather/1.0.0",
        "weather/1.0.0/airlock.json",
        "weather/1.0.0/index.js",
        "weather/1.0.0/package.json",
      ]);
      expect((await restarted.list()).map((p) => [p.namespace, p.active])).toEqual([["weather", "1.0.0"]]);
      expect(await restarted.install(v2)).toMatchObject({ version: "2.0.0", previous: "1.0.0" });
      await store.close();
    });
  });
}

describe("two host processes installing into one data directory at once", () => {
  it("serialises them through the lock file: both versions recorded, one active, the other previous", async () => {
    const dataDir = join(dir, "data");
    const store = await openStore({ kind: "sqlite", dataDir });
    const paths = ["1.0.0", "1.1.0"].map((version) => {
      const path = join(dir, `weather-${version}.tgz`);
      writeFileSync(path, samplePluginTarball({ namespace: "weather", version }));
      return path;
    });
    const results = await Promise.all(
      paths.map(
        (path) =>
          new Promise<{ at: string; report?: { version: string }; code?: string; message?: string }>(
            (resolve, reject) => {
              const child = fork(
                join(import.meta.dirname, "tarball-crash-child.ts"),
                [dataDir, path, "none"],
                {
                  execArgv: ["--no-node-snapshot"],
                  stdio: ["ignore", "ignore", "inherit", "ipc"],
                },
              );
              let last: { at: string } | undefined;
              child.on("message", (m: { at: string }) => {
                last = m;
              });
              child.once("exit", () =>
                last === undefined ? reject(new Error("child sent nothing")) : resolve(last),
              );
            },
          ),
      ),
    );
    expect(results.map((r) => [r.at, r.code ?? null, r.message ?? null])).toEqual([
      ["finished", null, null],
      ["finished", null, null],
    ]);
    const activation = await store.getActivation("weather");
    expect([activation?.active, activation?.previous].sort()).toEqual(["1.0.0", "1.1.0"]);
    expect(
      tree(join(dataDir, "plugins")).filter((p) => p.startsWith(".staging/") || p.startsWith(".locks/")),
    ).toEqual([]);
    await store.close();
  });
});
