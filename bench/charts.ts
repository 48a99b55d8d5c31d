// Draws the growth rows (11–15) of a bench report as SVG charts: one chart per `curve.chart`, one
// line per series, x the size of the work (log scale), y the cost relative to the curve's
// smallest size (log scale: 1× is flat), with the bound a curve is held to (1 + log10 n, from the
// smallest size) and what linear growth would be, dashed. Hand-written SVG, no dependency.
// `node bench/charts.ts [report.json] [outDir]`: by default bench/results/latest.json into
// docs/bench/. Invariant: a chart shows only figures of the report it is drawn from, and says
// which run (date, machine) they are.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import type { Row } from "./lib/report.ts";

interface Series {
  name: string;
  unit: string;
  points: Array<{ n: number; ratio: number; p50: number }>;
}

const W = 820;
const H = 400;
const M = { left: 64, right: 24, top: 48, bottom: 56 };
const COLORS = [
  "#1f77b4",
  "#d62728",
  "#2ca02c",
  "#9467bd",
  "#ff7f0e",
  "#8c564b",
  "#e377c2",
  "#17becf",
  "#7f7f7f",
];

/** A series named `<store>: <what>`: one color per `<what>`, PostgreSQL's line dashed. */
function styleOf(name: string, colors: Map<string, string>): { color: string; dash: string } {
  const what = name.replace(/^(SQLite|PostgreSQL): /, "");
  if (!colors.has(what)) colors.set(what, COLORS[colors.size % COLORS.length] as string);
  return { color: colors.get(what) as string, dash: name.startsWith("PostgreSQL: ") ? "7 4" : "none" };
}

const esc = (s: string) => s.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;");
const fmtN = (n: number) =>
  n >= 1e6 ? `${n / 1e6}M` : n >= 1e3 ? `${(n / 1e3).toLocaleString("en-US")}k` : String(n);
const fmtV = (v: number) => (v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2));

export function chartSvg(title: string, series: readonly Series[], caption: string): string {
  const ns = [...new Set(series.flatMap((s) => s.points.map((p) => p.n)))].sort((a, b) => a - b);
  const nMin = ns[0] ?? 1;
  const nMax = ns.at(-1) ?? 10;
  const logBound = (n: number) => (1 + Math.log10(n)) / (1 + Math.log10(nMin));
  const ratios = series.flatMap((s) => s.points.map((p) => p.ratio));
  const yLo = Math.min(0.5, ...ratios) / 1.2;
  const yHi = Math.max(2, logBound(nMax), ...ratios) * 1.3;
  const pw = W - M.left - M.right;
  const ph = H - M.top - M.bottom;
  const x = (n: number) =>
    M.left +
    (nMax === nMin
      ? pw / 2
      : ((Math.log10(n) - Math.log10(nMin)) / (Math.log10(nMax) - Math.log10(nMin))) * pw);
  const y = (r: number) =>
    M.top + ph - ((Math.log2(r) - Math.log2(yLo)) / (Math.log2(yHi) - Math.log2(yLo))) * ph;
  const out: string[] = [];
  out.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H + 22 * series.length + 24}" viewBox="0 0 ${W} ${H + 22 * series.length + 24}" font-family="system-ui, sans-serif" font-size="12">`,
    `<rect width="100%" height="100%" fill="#fff"/>`,
    `<text x="${M.left}" y="22" font-size="14" font-weight="600">${esc(title)}</text>`,
    `<text x="${M.left}" y="38" fill="#555">cost relative to n = ${fmtN(nMin)} (log scale; 1× is flat)</text>`,
  );
  // y grid: powers of two
  for (let e = Math.ceil(Math.log2(yLo)); e <= Math.floor(Math.log2(yHi)); e++) {
    const r = 2 ** e;
    out.push(
      `<line x1="${M.left}" x2="${W - M.right}" y1="${y(r).toFixed(1)}" y2="${y(r).toFixed(1)}" stroke="${r === 1 ? "#999" : "#e5e5e5"}"/>`,
      `<text x="${M.left - 8}" y="${(y(r) + 4).toFixed(1)}" text-anchor="end" fill="#555">${r < 1 ? r.toFixed(2) : r}×</text>`,
    );
  }
  for (const n of ns) {
    out.push(
      `<line x1="${x(n).toFixed(1)}" x2="${x(n).toFixed(1)}" y1="${M.top}" y2="${M.top + ph}" stroke="#e5e5e5"/>`,
      `<text x="${x(n).toFixed(1)}" y="${M.top + ph + 18}" text-anchor="middle" fill="#555">${fmtN(n)}</text>`,
    );
  }
  out.push(
    `<text x="${M.left + pw / 2}" y="${M.top + ph + 38}" text-anchor="middle" fill="#333">n (log scale)</text>`,
    `<rect x="${M.left}" y="${M.top}" width="${pw}" height="${ph}" fill="none" stroke="#999"/>`,
  );
  // references: the log n bound and linear growth
  const steps = Array.from({ length: 41 }, (_, i) => nMin * (nMax / nMin) ** (i / 40));
  const path = (f: (n: number) => number) =>
    steps
      .filter((n) => f(n) <= yHi && f(n) >= yLo)
      .map((n, i) => `${i === 0 ? "M" : "L"}${x(n).toFixed(1)},${y(f(n)).toFixed(1)}`)
      .join(" ");
  out.push(
    `<path d="${path(logBound)}" fill="none" stroke="#000" stroke-width="1.5" stroke-dasharray="1 3"/>`,
    `<path d="${path((n) => n / nMin)}" fill="none" stroke="#bbb" stroke-width="1.5" stroke-dasharray="2 4"/>`,
  );
  const colors = new Map<string, string>();
  series.forEach((s, i) => {
    const { color, dash } = styleOf(s.name, colors);
    const pts = s.points.map(
      (p) => `${x(p.n).toFixed(1)},${y(Math.min(yHi, Math.max(yLo, p.ratio))).toFixed(1)}`,
    );
    out.push(
      `<polyline points="${pts.join(" ")}" fill="none" stroke="${color}" stroke-width="2" stroke-dasharray="${dash}"/>`,
    );
    for (const pt of pts) {
      const [cx, cy] = pt.split(",");
      out.push(`<circle cx="${cx}" cy="${cy}" r="3.5" fill="${color}"/>`);
    }
    const first = s.points[0];
    const last = s.points.at(-1);
    const ly = H + 22 * i;
    out.push(
      `<line x1="${M.left}" x2="${M.left + 24}" y1="${ly - 4}" y2="${ly - 4}" stroke="${color}" stroke-width="2" stroke-dasharray="${dash}"/>`,
      `<text x="${M.left + 32}" y="${ly}">${esc(s.name)}: ${first ? fmtV(first.p50) : "–"} → ${last ? fmtV(last.p50) : "–"} ${esc(s.unit)} (${last ? last.ratio.toFixed(2) : "–"}×)</text>`,
    );
  });
  const ly = H + 22 * series.length;
  out.push(
    `<line x1="${M.left}" x2="${M.left + 24}" y1="${ly - 4}" y2="${ly - 4}" stroke="#000" stroke-width="1.5" stroke-dasharray="1 3"/>`,
    `<text x="${M.left + 32}" y="${ly}" fill="#555">the bound, ∝ 1 + log10 n (grey: ∝ n) · PostgreSQL dashed · ${esc(caption)}</text>`,
    "</svg>",
  );
  return `${out.join("\n")}\n`;
}

/** Groups a report's curve rows into charts and writes one SVG each; answers the files written. */
export function writeCharts(
  report: { meta: Record<string, unknown>; rows: Row[] },
  outDir: string,
): string[] {
  const charts = new Map<string, { title: string; series: Map<string, Series> }>();
  for (const row of report.rows) {
    if (row.curve === undefined) continue;
    const chart = charts.get(row.curve.chart) ?? { title: row.curve.title, series: new Map() };
    charts.set(row.curve.chart, chart);
    const series = chart.series.get(row.curve.series) ?? {
      name: row.curve.series,
      unit: row.unit,
      points: [],
    };
    chart.series.set(row.curve.series, series);
    series.points.push({
      n: row.curve.n,
      ratio: series.points.length === 0 ? 1 : (row.ratio ?? Number.NaN),
      p50: row.p50,
    });
  }
  mkdirSync(outDir, { recursive: true });
  const caption = `${String(report.meta.date ?? "")
    .slice(0, 16)
    .replace("T", " ")} UTC, ${report.meta.cpus} × ${report.meta.cpuModel}`;
  return [...charts].map(([name, chart]) => {
    const file = join(outDir, `${name}.svg`);
    writeFileSync(file, chartSvg(chart.title, [...chart.series.values()], caption));
    return file;
  });
}

if (import.meta.main) {
  const root = resolve(import.meta.dirname, "..");
  const input = process.argv[2] ?? join(root, "bench", "results", "latest.json");
  const outDir = process.argv[3] ?? join(root, "docs", "bench");
  const files = writeCharts(JSON.parse(readFileSync(input, "utf8")), outDir);
  process.stdout.write(`${files.join("\n")}\n`);
}
