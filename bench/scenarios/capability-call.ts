// Row 2: one capability call from plugin code (ctx.secrets.get, ctx.state.get,
// ctx.knowledge.search): per-call cost measured as the slope between a tool making N calls and
// the same tool making none, so the tool-call overhead cancels out. Baseline: the same store
// operation called in-process. Target: p50 ≤ 50 µs above the store operation. The tool making
// none is sampled after WARM_CALLS calls (warm-call.ts: V8 tiers the call path up over the first
// 1,000–1,500 calls; sampled cold, it read 235–459 µs p50 against 69–149 warm, which made the
// slope look smaller than it is); each tool making N is sampled after 50 calls (50 × N ctx calls).
import { openStore } from "../../host/src/host.ts";
import { createSecretSource, openVault } from "../../host/src/state/secrets/index.ts";
import { startBenchHost } from "../lib/bench-host.ts";
import { buildBenchPlugin } from "../lib/plugin.ts";
import type { Row } from "../lib/report.ts";
import { sample, summarize, WARM_CALLS } from "../lib/stats.ts";

const KINDS = ["secrets", "state", "knowledge"] as const;

export async function capabilityCall(quick: boolean): Promise<Row[]> {
  const n = quick ? 3 : 300;
  const perCall = quick ? 2 : 20;
  const plugin = await buildBenchPlugin("bench", "1.0.0", 0);
  const rows: Row[] = [];
  for (const mode of ["workers", "in-process"] as const) {
    const bench = await startBenchHost(plugin, { mode });
    // The host has no public store: the baseline and the seeding use a handle of their own on
    // the same SQLite store (writes through it are seen by the host's next read).
    const db = await openStore({ kind: "sqlite", dataDir: bench.dataDir });
    try {
      const { host, dataDir } = bench;
      await host.setSecrets("bench", { bench_key: "s3cr3t-bench-value" });
      await db.setState("bench", "c1", "bench", "k", JSON.stringify({ v: 1 }), 1 << 20);
      for (let i = 0; i < 50; i++) {
        const now = new Date().toISOString();
        await db.putKnowledgeDoc({
          id: `doc-${i}`,
          agent: "bench",
          filename: `doc-${i}.md`,
          content: `benchmark document ${i} about throughput, latency and the sandbox boundary`,
          mime: "text/markdown",
          writer: "operator",
          createdAt: now,
          updatedAt: now,
        });
      }
      const source = createSecretSource({
        store: db,
        vault: openVault({ dataDir, env: process.env }),
      });
      const baselineOps: Record<(typeof KINDS)[number], () => Promise<unknown>> = {
        secrets: () => source.get("bench", "bench_key"),
        state: () => db.getState("bench", "c1", "bench", "k"),
        knowledge: () => db.searchKnowledge("bench", "benchmark", 5),
      };
      const run = bench.run;
      const zero = summarize(
        await sample(n, () => run.call("bench:caps", { kind: "state", n: 0 }), quick ? 10 : WARM_CALLS),
      );
      for (const kind of KINDS) {
        const check = await run.call("bench:caps", { kind, n: 1 });
        if (check.result.isError)
          throw new Error(`bench:caps ${kind} failed: ${JSON.stringify(check.result)}`);
        const many = summarize(await sample(n, () => run.call("bench:caps", { kind, n: perCall })));
        const slope = (many.p50 - zero.p50) / perCall;
        const store = summarize(await sample(n * 4, baselineOps[kind]));
        rows.push({
          id: "2",
          what: `capability call ctx.${kind === "secrets" ? "secrets.get" : kind === "state" ? "state.get" : "knowledge.search"} (${mode})`,
          unit: "µs",
          p50: slope,
          baseline: { what: "same store operation in-process", p50: store.p50 },
          ratio: slope / store.p50,
          target: "≤ 50 µs above the store operation",
          met: slope - store.p50 <= 50,
          note: `overhead above store op: ${(slope - store.p50).toFixed(1)} µs (slope over ${perCall} calls per tool call)`,
        });
      }
    } finally {
      await db.close();
      await bench.close();
    }
  }
  return rows;
}
