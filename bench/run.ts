// `npm run bench`: runs every benchmark row side by side with its baselines, each row in a process
// of its own (heavy probes in further child processes), prints one table, and writes
// bench/results/latest.{json,md}. A row in its own process is measured as it would be alone: run
// one after another in one process, a row carried the heap and the threads the rows before it
// left (row 3 read 2–5 ms higher after rows 0–2 than alone; row 5's steady state 9.8 k calls/s
// after rows 0–4, 16.5 k alone minutes apart).
// `--quick` runs tiny iteration counts (the smoke run in npm test) and writes smoke.{json,md}.
// `--only 1,3` runs some rows and writes partial.{json,md}. Figures are medians (p50) and p90
// over the samples of this run.
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { machine, type Row, toMarkdown, writeReport } from "./lib/report.ts";
import { capabilityCall } from "./scenarios/capability-call.ts";
import { codeMode } from "./scenarios/code-mode.ts";
import { coldStart } from "./scenarios/cold-start.ts";
import { growthAgents } from "./scenarios/growth-agents.ts";
import { growthApprovals } from "./scenarios/growth-approvals.ts";
import { growthAudit } from "./scenarios/growth-audit.ts";
import { growthKnowledge } from "./scenarios/growth-knowledge.ts";
import { growthToolsList } from "./scenarios/growth-tools-list.ts";
import { hostileMix } from "./scenarios/hostile-mix.ts";
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
  "10": hostileMix,
  "11": growthToolsList,
  "12": growthAgents,
  "13": growthAudit,
  "14": growthKnowledge,
  "15": growthApprovals,
};

export async function runBenchmarks(options: { quick: boolean; only?: string[] }): Promise<Row[]> {
  const rows: Row[] = [];
  for (const id of Object.keys(SCENARIOS)) {
    if (options.only && !options.only.includes(id)) continue;
    const t0 = Date.now();
    rows.push(...(await runRowAlone(id, options.quick)));
    process.stderr.write(`[bench] row ${id} done in ${((Date.now() - t0) / 1000).toFixed(1)} s\n`);
  }
  // A smoke run's iteration counts are too small to judge a target.
  return options.quick ? rows.map(({ met: _met, ...row }) => row) : rows;
}

/** Runs one row's scenario in a fresh process (`--row`), which writes its rows to a file. */
async function runRowAlone(id: string, quick: boolean): Promise<Row[]> {
  const dir = mkdtempSync(join(tmpdir(), "airlock-bench-row-"));
  const out = join(dir, "rows.json");
  try {
    const args = [...process.execArgv, import.meta.filename, "--row", id, "--out", out];
    const child = spawn(process.execPath, quick ? [...args, "--quick"] : args, {
      stdio: ["ignore", "inherit", "inherit"],
    });
    const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve, reject) => {
      child.once("error", reject);
      child.once("exit", (c, s) => resolve([c, s]));
    });
    if (code !== 0) throw new Error(`bench row ${id} failed (exit ${code ?? signal})`);
    return JSON.parse(readFileSync(out, "utf8")) as Row[];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.main) {
  const args = process.argv.slice(2);
  const quick = args.includes("--quick");
  const rowAt = args.indexOf("--row");
  if (rowAt >= 0) {
    // one row, in this process of its own (runRowAlone)
    const scenario = SCENARIOS[args[rowAt + 1] ?? ""];
    const outAt = args.indexOf("--out");
    if (scenario === undefined || outAt < 0) throw new Error("--row needs a row id and --out <file>");
    writeFileSync(args[outAt + 1] as string, JSON.stringify(await scenario(quick)));
    process.exit(0);
  }
  const onlyAt = args.indexOf("--only");
  const only = onlyAt >= 0 ? args[onlyAt + 1]?.split(",") : undefined;
  const rows = await runBenchmarks({ quick, ...(only ? { only } : {}) });
  const mode = quick ? "smoke" : only ? "partial" : "full";
  const out = writeReport(rows, join(import.meta.dirname, "results"), mode);
  process.stdout.write(`\n${toMarkdown(rows, machine())}\nWritten: ${out.json}, ${out.md}\n`);
}
