// Inline SVG charts (no chart service, nothing fetched): tool calls and failures over time, and
// the slowest tools. Each chart has a text title and description for screen readers.
import { html } from "../html.js";
import { Ident } from "../ident.js";

const W = 720;
const H = 180;
const PAD = { l: 36, r: 8, t: 10, b: 28 };

/** Tool-call entries bucketed over their time span: [{start, calls, failures}]. */
export function bucketCalls(entries, buckets = 24) {
  const calls = entries.filter((e) => e.kind === "tool");
  if (calls.length === 0) return [];
  const times = calls.map((e) => Date.parse(e.at));
  const min = Math.min(...times);
  const max = Math.max(...times);
  const span = Math.max(max - min, 60_000);
  const size = span / buckets;
  const out = Array.from({ length: buckets }, (_, i) => ({ start: min + i * size, calls: 0, failures: 0 }));
  calls.forEach((e, i) => {
    const b = out[Math.min(buckets - 1, Math.floor((times[i] - min) / size))];
    b.calls += 1;
    if (e.success === false) b.failures += 1;
  });
  return out;
}

export function CallsChart({ entries }) {
  const buckets = bucketCalls(entries);
  if (buckets.length === 0) return html`<p class="muted">No tool calls in these entries.</p>`;
  const top = Math.max(1, ...buckets.map((b) => b.calls));
  const iw = W - PAD.l - PAD.r;
  const ih = H - PAD.t - PAD.b;
  const bw = iw / buckets.length;
  const y = (v) => PAD.t + ih - (v / top) * ih;
  const total = buckets.reduce((s, b) => s + b.calls, 0);
  const failed = buckets.reduce((s, b) => s + b.failures, 0);
  const fmt = (t) => new Date(t).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
  return html`<figure class="chart">
    <svg viewBox="0 0 ${W} ${H}" role="img" aria-labelledby="calls-title calls-desc" preserveAspectRatio="xMidYMid meet">
      <title id="calls-title">Tool calls and failures over time</title>
      <desc id="calls-desc">${total} calls, ${failed} failed, from ${fmt(buckets[0].start)} to ${fmt(buckets.at(-1).start)}.</desc>
      <line x1=${PAD.l} x2=${W - PAD.r} y1=${PAD.t + ih} y2=${PAD.t + ih} class="axis" />
      <text x=${PAD.l - 4} y=${PAD.t + 8} class="tick" text-anchor="end">${top}</text>
      <text x=${PAD.l - 4} y=${PAD.t + ih} class="tick" text-anchor="end">0</text>
      ${buckets.map(
        (b, i) => html`<g>
          <rect x=${PAD.l + i * bw + 1} width=${Math.max(1, bw - 2)} y=${y(b.calls)} height=${PAD.t + ih - y(b.calls)} class="bar-calls"><title>${fmt(b.start)}: ${b.calls} calls, ${b.failures} failed</title></rect>
          ${b.failures > 0 && html`<rect x=${PAD.l + i * bw + 1} width=${Math.max(1, bw - 2)} y=${y(b.failures)} height=${PAD.t + ih - y(b.failures)} class="bar-fail" />`}
        </g>`,
      )}
      <text x=${PAD.l} y=${H - 8} class="tick">${fmt(buckets[0].start)}</text>
      <text x=${W - PAD.r} y=${H - 8} class="tick" text-anchor="end">${fmt(buckets.at(-1).start)}</text>
    </svg>
    <figcaption><span class="key calls"></span> calls <span class="key fail"></span> failures — ${total} calls, ${failed} failed</figcaption>
  </figure>`;
}

/** The time a tool call spent waiting for someone's approval (its audit row's details), in ms. */
export function approvalWaitOf(e) {
  const w = e.details?.waitedForApprovalMs;
  return typeof w === "number" && w > 0 ? w : 0;
}

/** The time a tool call ran: its duration less any wait for approval, in ms. */
export function executionOf(e) {
  return Math.max(0, e.durationMs - approvalWaitOf(e));
}

const toolId = (e) => (e.plugin === null ? e.tool : `${e.plugin}:${e.tool}`);

/** Per tool, the largest and the median of `measure` over its calls (those it answers a number for). */
function byTool(entries, measure, limit) {
  const by = new Map();
  for (const e of entries) {
    if (e.kind !== "tool" || e.tool === null || typeof e.durationMs !== "number") continue;
    const value = measure(e);
    if (value === null) continue;
    const list = by.get(toolId(e)) ?? [];
    list.push(value);
    by.set(toolId(e), list);
  }
  return [...by.entries()]
    .map(([tool, ds]) => {
      const sorted = [...ds].sort((a, b) => a - b);
      return { tool, max: sorted.at(-1), median: sorted[Math.floor(sorted.length / 2)], calls: ds.length };
    })
    .sort((a, b) => b.max - a.max)
    .slice(0, limit);
}

/** Tools by their slowest call's execution time (ms, approval waits left out), with the median. */
export function slowestTools(entries, limit = 8) {
  return byTool(entries, executionOf, limit);
}

/** Tools by their longest wait for an approval (ms), over the calls that waited. */
export function longestWaits(entries, limit = 8) {
  return byTool(entries, (e) => (approvalWaitOf(e) > 0 ? approvalWaitOf(e) : null), limit);
}

/** "850 ms", "12.4 s", "3 min 5 s". */
export function duration(ms) {
  if (ms < 1000) return `${ms} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}

/**
 * Horizontal bars, one row per tool: the tool's full name on a line of its own (HTML, so it wraps
 * at its separators instead of being clipped, however long), then its bar with the median darker
 * (a small SVG stretched to the row) and the figures.
 */
function BarRows({ id, title, rows, unit, caption }) {
  const top = Math.max(1, ...rows.map((r) => r.max));
  const label = `${title}: ${rows.map((r) => `${r.tool} ${duration(r.max)}`).join(", ")}`;
  return html`<figure class="chart bars">
    <ul class="bar-rows" role="img" aria-label=${label} id=${id}>
      ${rows.map(
        (r) => html`<li key=${r.tool}>
          <${Ident} class="bar-label" text=${r.tool} />
          <span class="bar-line">
            <svg class="bar-track" viewBox="0 0 100 10" preserveAspectRatio="none" aria-hidden="true">
              <rect x="0" y="0" height="10" width=${Math.max(0.5, (100 * r.max) / top)} class="bar-${unit}" />
              <rect x="0" y="0" height="10" width=${Math.max(0.5, (100 * r.median) / top)} class="bar-${unit}-median" />
            </svg>
            <span class="bar-figures">${duration(r.max)} (median ${duration(r.median)}, ${r.calls} ${r.calls === 1 ? "call" : "calls"})</span>
          </span>
        </li>`,
      )}
    </ul>
    <figcaption>${caption}</figcaption>
  </figure>`;
}

export function SlowestChart({ entries }) {
  const rows = slowestTools(entries);
  if (rows.length === 0) return null;
  return html`<${BarRows} id="slow-title" title="Slowest tools" rows=${rows} unit="slow"
    caption="Slowest call per tool, in execution time (waits for approval left out); the darker part is the median." />`;
}

export function WaitsChart({ entries }) {
  const rows = longestWaits(entries);
  if (rows.length === 0) return null;
  return html`<${BarRows} id="wait-title" title="Waits for approval" rows=${rows} unit="wait"
    caption="Longest wait for an approval per tool, over the calls that waited; the darker part is the median." />`;
}
