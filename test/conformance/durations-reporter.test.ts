// The durations reporter npm test runs with every pass (test/setup/durations-reporter.ts): a real
// vitest run of one file writes that file's durations and test count where AIRLOCK_DURATIONS says.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "vitest";
import type { FileDurations } from "../setup/durations-reporter.ts";

const ROOT = join(import.meta.dirname, "../..");

test("writes each file's durations as JSON where AIRLOCK_DURATIONS says", () => {
  const dir = mkdtempSync(join(tmpdir(), "airlock-durations-"));
  try {
    const target = join(dir, "pass.json");
    const run = spawnSync(
      join(ROOT, "node_modules/.bin/vitest"),
      ["run", "--reporter=./test/setup/durations-reporter.ts", "test/conformance/layering.test.ts"],
      { cwd: ROOT, env: { ...process.env, AIRLOCK_DURATIONS: target }, encoding: "utf8" },
    );
    expect(run.status, run.stderr).toBe(0);
    const { files } = JSON.parse(readFileSync(target, "utf8")) as { files: FileDurations[] };
    expect(files).toHaveLength(1);
    const [layering] = files;
    expect(layering?.file).toBe("test/conformance/layering.test.ts");
    expect(layering?.state).toBe("passed");
    expect(layering?.tests).toBeGreaterThan(0);
    expect(layering?.runMs).toBeGreaterThanOrEqual(0);
    expect(layering?.collectMs).toBeGreaterThan(0);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
