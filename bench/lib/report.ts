// The benchmark report: one table of rows (median, p90, baseline, ratio, target, verdict),
// printed to stdout and written as JSON and markdown to bench/results/ with the machine's
// description. Invariant: a row's ratio is computed from figures measured in the same run.
import { mkdirSync, writeFileSync } from "node:fs";
import { cpus, freemem, totalmem } from "node:os";
import { join } from "node:path";

export interface Row {
  id: string;
  what: string;
  unit: string;
  p50: number;
  p90?: number;
  baseline?: { what: string; p50: number };
  /** Ratio of p50 to the baseline's p50, or any other ratio the row defines. */
  ratio?: number;
  target: string;
  /** Whether the target was met; undefined when it cannot be judged in this run. */
  met?: boolean;
  note?: string;
  /** A point of a growth curve (rows 11–15): drawn by bench/charts.ts into docs/bench/<chart>.svg. */
  curve?: { chart: string; title: string; series: string; n: number };
}

export function machine(): Record<string, string | number> {
  const cpu = cpus();
  return {
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
    cpus: cpu.length,
    cpuModel: cpu[0]?.model ?? "unknown",
    memoryGiB: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    freeGiB: Math.round((freemem() / 2 ** 30) * 10) / 10,
  };
}

const fmt = (v: number | undefined, digits = 1): string =>
  v === undefined || Number.isNaN(v) ? "–" : v >= 100 ? v.toFixed(0) : v.toFixed(digits);

export function toMarkdown(rows: readonly Row[], meta: Record<string, string | number>): string {
  const head =
    "| # | what | p50 | p90 | unit | baseline (p50) | ratio | target | met |\n|---|---|---|---|---|---|---|---|---|";
  const lines = rows.map((r) =>
    [
      r.id,
      r.what,
      fmt(r.p50),
      fmt(r.p90),
      r.unit,
      r.baseline ? `${r.baseline.what}: ${fmt(r.baseline.p50)}` : "–",
      r.ratio === undefined ? "–" : `${fmt(r.ratio, 2)}×`,
      r.target,
      r.met === undefined ? "–" : r.met ? "yes" : "**no**",
    ].join(" | "),
  );
  const machineLine = Object.entries(meta)
    .map(([k, v]) => `${k}: ${v}`)
    .join(", ");
  return `${head}\n${lines.map((l) => `| ${l} |`).join("\n")}\n\nMachine: ${machineLine}\n`;
}

/** Writes `latest.*` for a full run, `partial.*` for a run of some rows, `smoke.*` for --quick. */
export function writeReport(
  rows: readonly Row[],
  dir: string,
  mode: "full" | "partial" | "smoke",
): { json: string; md: string } {
  mkdirSync(dir, { recursive: true });
  const meta = { ...machine(), date: new Date().toISOString(), mode };
  const base = mode === "full" ? "latest" : mode;
  const json = join(dir, `${base}.json`);
  const md = join(dir, `${base}.md`);
  writeFileSync(json, `${JSON.stringify({ meta, rows }, null, 2)}\n`);
  writeFileSync(md, toMarkdown(rows, meta));
  return { json, md };
}
