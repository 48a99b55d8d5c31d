// `npm run bench`: runs every benchmark row side by side with its baselines in one process
// (heavy probes in child processes), prints one table, and writes bench/results/latest.{json,md}.
// `--quick` runs tiny iteration counts (the smoke run in npm test) and writes smoke.{json,md}.
// `--only 1,3` runs some rows and writes partial.{json,md}. Figures are medians (p50) and p90 over the samples of this run.
import { join } from "node:path";
import { machine, type Row, toMarkdown, writeReport } from "./lib/report.ts";
import { capabilityCall } from "./scenarios/capability-call.ts";
import { codeMode } from "./scenarios/code-mode.ts";
import { coldStart } from "./scenarios/cold-start.ts";
import { install } from "./scenarios/install.ts";
import { mcpFrontDoor } from "./scenarios/mcp-front-door.ts";
import { memory } from "./scenarios/memory.ts";
import { remoteCall } from "./scenarios/remote-call.ts";
import { runaway } from "./scenarios/runaway.ts";
import { throughput } from "./scenarios/throughput.ts";
import { warmCall } from "./scenarios/warm-call.ts";

export const SCENARIOS: Record<string, (quick: boolean) => Promise<Row[]>> = {
  "0": mcpFrontDoor,
  "1": warmCall,
  "2": capabilityCall,
  "3": coldStart,
  "4": memory,
  "5": throughput,
  "6": install,
  "7": runaway,
  "8": codeMode,
  "9": remoteCall,
};

export async function runBenchmarks(options: { quick: boolean; only?: string[] }): Promise<Row[]> {
  const rows: Row[] = [];
  for (const [id, scenario] of Object.entries(SCENARIOS)) {
    if (options.only && !options.only.includes(id)) continue;
    const t0 = Date.now();
    rows.push(...(await scenario(options.quick)));
    process.stderr.write(`[bench] row ${id} done in ${((Date.now() - t0) / 1000).toFixed(1)} s\n`);
  }
  // A smoke run's iteration counts are too small to judge a target.
  return options.quick ? rows.map(({ met: _met, ...row }) => row) : rows;
}

if (import.meta.main) {
  const args = process.argv.slice(2);
  const quick = args.includes("--quick");
  const onlyAt = args.indexOf("--only");
  const only = onlyAt >= 0 ? args[onlyAt + 1]?.split(",") : undefined;
  const rows = await runBenchmarks({ quick, ...(only ? { only } : {}) });
  const mode = quick ? "smoke" : only ? "partial" : "full";
  const out = writeReport(rows, join(import.meta.dirname, "results"), mode);
  process.stdout.write(`\n${toMarkdown(rows, machine())}\nWritten: ${out.json}, ${out.md}\n`);
}
