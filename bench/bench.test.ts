// Smoke run of the benchmark suite (tiny iteration counts): keeps every row working. It asserts
// that each row produced a finite figure, never a speed: timing is the benchmarks' job.
import { describe, expect, it } from "vitest";
import { runBenchmarks, SCENARIOS } from "./run.ts";

describe("benchmark suite (smoke)", () => {
  it("produces a finite figure for every row", async () => {
    const rows = await runBenchmarks({ quick: true });
    const ids = new Set(rows.map((r) => r.id.replace(/[a-z]$/, "")));
    expect([...ids].sort()).toEqual(Object.keys(SCENARIOS).sort());
    for (const row of rows) {
      expect(Number.isFinite(row.p50), `${row.id} ${row.what}`).toBe(true);
      if (row.baseline) expect(Number.isFinite(row.baseline.p50), `${row.id} baseline`).toBe(true);
    }
  });
});
