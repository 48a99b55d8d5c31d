// Row 4: memory per idle plugin isolate and per agent context, as RSS growth over 100 plugins
// and 60 held contexts (under the per-isolate cap of 64), then over 1,000 agents (contexts past
// the cap evicted) in a clean child process. Baseline: RSS growth per idle worker_threads worker.
// Targets: ≤ 2 MiB per small plugin, ≤ 0.5 MiB per agent context.
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { buildBenchPlugin } from "../lib/plugin.ts";
import type { Row } from "../lib/report.ts";

const PROBE = join(import.meta.dirname, "..", "fixtures", "memory-probe.ts");

export async function memory(quick: boolean): Promise<Row[]> {
  const plugin = await buildBenchPlugin("bench", "1.0.0", 0);
  const manifestPath = join(plugin.dir, "dist", "airlock.json");
  const rows: Row[] = [];
  for (const [plugins, contexts] of quick ? [[5, 20]] : [[100, 60]]) {
    const out = execFileSync(
      process.execPath,
      [
        "--no-node-snapshot",
        "--expose-gc",
        PROBE,
        plugin.bundlePath,
        manifestPath,
        String(plugins),
        String(contexts),
      ],
      { encoding: "utf8", maxBuffer: 1 << 20 },
    );
    const r = JSON.parse(out.trim().split("\n").at(-1) ?? "{}") as Record<string, number>;
    const perWorker = r.perWorkerMiB ?? Number.NaN;
    const perPlugin = r.perPluginMiB ?? Number.NaN;
    const perContext = r.perContextMiB ?? Number.NaN;
    rows.push(
      {
        id: "4",
        what: `RSS per idle plugin isolate (${plugins} plugins, bundle ${Math.round(plugin.bundleSize / 1024)} KB)`,
        unit: "MiB",
        p50: perPlugin,
        baseline: { what: "idle worker_threads worker", p50: perWorker },
        ratio: perPlugin / perWorker,
        target: "≤ 2 MiB",
        met: perPlugin <= 2,
      },
      {
        id: "4",
        what: `RSS per agent context (${contexts} contexts in one isolate)`,
        unit: "MiB",
        p50: perContext,
        baseline: { what: "idle worker_threads worker", p50: perWorker },
        ratio: perContext / perWorker,
        target: "≤ 0.5 MiB",
        met: perContext <= 0.5,
        note: `1,000 agents through one isolate (idle contexts evicted past the per-isolate cap): ${(r.perAgentOver1000MiB ?? Number.NaN).toFixed(3)} MiB RSS growth per agent`,
      },
    );
  }
  return rows;
}
