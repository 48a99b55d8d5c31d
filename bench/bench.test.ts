// Smoke run of the benchmark suite exactly as docs/benchmarks.md shows it, `npm run bench --
// --quick` (tiny iteration counts): keeps every row working. It asserts that each row produced a
// finite figure, never a speed: timing is the benchmarks' job. The page's row table names every
// row the suite runs, and no other, so the page cannot drift from bench/run.ts.
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import type { Row } from "./lib/report.ts";
import { SCENARIOS } from "./run.ts";

const root = resolve(import.meta.dirname, "..");

describe("benchmark suite (smoke)", () => {
  it("docs/benchmarks.md shows the smoke command and describes every row of bench/run.ts", () => {
    const doc = readFileSync(join(root, "docs", "benchmarks.md"), "utf8");
    const commands = [...doc.matchAll(/```sh\n([\s\S]*?)```/g)].flatMap((m) =>
      (m[1] as string).split("\n").map((line) => line.replace(/\s+#.*$/, "").trim()),
    );
    expect(commands).toContain("npm run bench -- --quick");
    const table = doc.slice(doc.indexOf("## What each row measures"), doc.indexOf("## The latest full run"));
    const rows = [...table.matchAll(/^\| (\d+) \|/gm)].map((m) => m[1]);
    expect(rows.sort()).toEqual(Object.keys(SCENARIOS).sort());
  });

  it("npm run bench -- --quick produces a finite figure for every row", () => {
    const run = spawnSync("npm", ["run", "bench", "--", "--quick"], { cwd: root, encoding: "utf8" });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toContain("| # | what | p50 |");
    const { rows, meta } = JSON.parse(readFileSync(join(root, "bench", "results", "smoke.json"), "utf8")) as {
      rows: Row[];
      meta: { mode: string; node: string };
    };
    expect(meta.mode).toBe("smoke");
    expect(meta.node.startsWith("v24.")).toBe(true);
    const ids = new Set(rows.map((r) => r.id.replace(/[a-z]$/, "")));
    expect([...ids].sort()).toEqual(Object.keys(SCENARIOS).sort());
    for (const row of rows) {
      expect(Number.isFinite(row.p50), `${row.id} ${row.what}`).toBe(true);
      if (row.baseline) expect(Number.isFinite(row.baseline.p50), `${row.id} baseline`).toBe(true);
      expect(row.met, "a smoke run judges no target").toBeUndefined();
    }
  });
});
