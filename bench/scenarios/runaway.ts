// Row 7: a runaway loop (sync, stopped by the CPU budget) and an awaiting stall (stopped by the
// host's wall-clock deadline), measured as how long after its budget each call comes back with
// its error code; meanwhile the host's event-loop lag (monitorEventLoopDelay). Baseline: the
// budget itself. Targets: stopped within 5 ms of budget; lag ≤ 5 ms. A call that ends by a limit
// retires its isolate (sandbox/retire.ts), so before each sample one trivial call builds the
// fresh one: the sample times the stop, and the rebuild (row 3's cold start) is the warm-up's.
import { monitorEventLoopDelay } from "node:perf_hooks";
import { startBenchHost } from "../lib/bench-host.ts";
import { buildBenchPlugin } from "../lib/plugin.ts";
import type { Row } from "../lib/report.ts";
import { summarize } from "../lib/stats.ts";

const CPU_MS = 100;
const WALL_MS = 250;

export async function runaway(quick: boolean): Promise<Row[]> {
  const plugin = await buildBenchPlugin("bench", "1.0.0", 0);
  const bench = await startBenchHost(plugin, { mode: "workers", limits: { cpuMs: CPU_MS, wallMs: WALL_MS } });
  const rows: Row[] = [];
  try {
    for (const [tool, budget, what] of [
      ["runaway", CPU_MS, "sync infinite loop, CPU budget"],
      ["stall", WALL_MS, "awaiting stall, wall-clock budget"],
    ] as const) {
      await bench.run.call("bench:echo", { text: "warm" });
      const over: number[] = [];
      const codes = new Set<string>();
      const lag = monitorEventLoopDelay({ resolution: 1 });
      lag.enable();
      for (let i = 0; i < (quick ? 1 : 10); i++) {
        await bench.run.call("bench:echo", { text: "fresh isolate" });
        const t0 = process.hrtime.bigint();
        const outcome = await bench.run.call(`bench:${tool}`, { x: null });
        over.push(Number(process.hrtime.bigint() - t0) / 1e6 - budget);
        codes.add(outcome.errorCode ?? (outcome.result.isError ? "isError without code" : "no error"));
      }
      lag.disable();
      const s = summarize(over);
      const lagP99 = lag.percentile(99) / 1e6;
      rows.push({
        id: "7",
        what: `${what} ${budget} ms: time past budget (${[...codes].join(", ")})`,
        unit: "ms",
        p50: s.p50,
        p90: s.p90,
        baseline: { what: "budget", p50: budget },
        ratio: (budget + s.p50) / budget,
        target: "≤ 5 ms past budget; lag ≤ 5 ms",
        met: s.p50 <= 5 && lagP99 <= 5,
        note: `host event-loop lag p99 ${lagP99.toFixed(2)} ms, max ${(lag.max / 1e6).toFixed(2)} ms`,
      });
    }
  } finally {
    await bench.close();
  }
  return rows;
}
