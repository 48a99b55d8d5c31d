// Node's compile cache for Airlock's processes: where it lives, that the CLI fills it, and that a
// sandbox worker's environment holds its directory and nothing else of the host's.
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { compileCacheDirectory, compileCacheEnv } from "@airlock/sdk/compile-cache";
import { afterAll, describe, expect, it } from "vitest";
import { makePlugin } from "./isolation/sandbox/plugin-fixture.ts";
import { createWorkerSandbox } from "./isolation/sandbox/worker/workers.ts";

const CLI = join(import.meta.dirname, "..", "bin", "airlock.ts");
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe("compile cache", () => {
  it("lives in the user's cache folder, and the user's switches win", () => {
    expect(compileCacheDirectory({ XDG_CACHE_HOME: "/x/cache" })).toBe("/x/cache/airlock/node-compile-cache");
    expect(compileCacheDirectory({})).toBe(join(homedir(), ".cache", "airlock", "node-compile-cache"));
    expect(compileCacheEnv({ XDG_CACHE_HOME: "/x/cache", SECRET: "s" })).toEqual({
      NODE_COMPILE_CACHE: "/x/cache/airlock/node-compile-cache",
    });
    expect(compileCacheEnv({ NODE_COMPILE_CACHE: "/mine" })).toEqual({ NODE_COMPILE_CACHE: "/mine" });
    expect(compileCacheEnv({ NODE_DISABLE_COMPILE_CACHE: "1" })).toEqual({});
  });

  it("is filled by a run of the CLI", () => {
    const cache = mkdtempSync(join(tmpdir(), "airlock-ncc-"));
    dirs.push(cache);
    const { NODE_COMPILE_CACHE: _, ...env } = process.env;
    execFileSync(process.execPath, ["--no-node-snapshot", CLI, "--version"], {
      env: { ...env, XDG_CACHE_HOME: cache },
      encoding: "utf8",
    });
    const dir = join(cache, "airlock", "node-compile-cache");
    expect(existsSync(dir)).toBe(true);
    const versions = readdirSync(dir);
    expect(versions.length).toBe(1);
    expect(readdirSync(join(dir, versions[0] as string)).length).toBeGreaterThan(10);
  });

  it("gives a sandbox worker its directory and nothing else of the host's environment", async () => {
    process.env.AIRLOCK_TEST_CANARY = "canary-env-5b2e-never-in-a-worker";
    const sandbox = createWorkerSandbox({ workers: 1 });
    try {
      await sandbox.load(
        makePlugin({
          namespace: "envcheck",
          code: "globalThis.__airlockPlugin = { tools: { echo: async (input) => input } };",
          tools: ["echo"],
        }),
      );
      const [pid] = sandbox.workerPids();
      const environ = readFileSync(`/proc/${pid}/environ`, "utf8").split("\0").filter(Boolean);
      expect(environ.map((e) => e.slice(0, e.indexOf("=")))).toEqual(["NODE_COMPILE_CACHE"]);
      expect(environ.join("\n")).not.toContain("canary-env-5b2e");
    } finally {
      delete process.env.AIRLOCK_TEST_CANARY;
      await sandbox.close();
    }
  });
});
