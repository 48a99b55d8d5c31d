// Inline SVG charts (no chart service, nothing fetched): tool calls and failures over time, and
// the slowest tools. Each chart has a text title and description for screen readers.
import { html } from "../html.js";

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

/** Tools by their slowest call (ms), with the median, slowest first. */
export function slowestTools(entries, limit = 8) {
  const by = new Map();
  for (const e of entries) {
    if (e.kind !== "tool" || e.tool === null || typeof e.durationMs !== "number") continue;
    const id = e.plugin === null ? e.tool : `${e.plugin}:${e.tool}`;
    const list = by.get(id) ?? [];
    list.push(e.durationMs);
    by.set(id, list);
  }
  return [...by.entries()]
    .map(([tool, ds]) => {
      const sorted = [...ds].sort((a, b) => a - b);
      return { tool, max: sorted.at(-1), median: sorted[Math.floor(sorted.length / 2)], calls: ds.length };
    })
    .sort((a, b) => b.max - a.max)
    .slice(0, limit);
}

export function SlowestChart({ entries }) {
  const rows = slowestTools(entries);
  if (rows.length === 0) return null;
  const top = Math.max(1, ...rows.map((r) => r.max));
  const rowH = 26;
  const labelW = 150;
  const h = rows.length * rowH + 8;
  return html`<figure class="chart">
    <svg viewBox="0 0 ${W} ${h}" role="img" aria-labelledby="slow-title">
      <title id="slow-title">Slowest tools: ${rows.map((r) => `${r.tool} ${r.max} ms`).join(", ")}</title>
      ${rows.map((r, i) => {
        const w = ((W - labelW - 230) * r.max) / top;
        const m = ((W - labelW - 230) * r.median) / top;
        return html`<g>
          <text x=${labelW - 6} y=${i * rowH + 17} text-anchor="end" class="label">${r.tool}</text>
          <rect x=${labelW} y=${i * rowH + 4} width=${Math.max(1, w)} height=${rowH - 8} class="bar-slow" />
          <rect x=${labelW} y=${i * rowH + 4} width=${Math.max(1, m)} height=${rowH - 8} class="bar-median" />
          <text x=${labelW + w + 6} y=${i * rowH + 17} class="tick">${r.max} ms (median ${r.median}, ${r.calls} calls)</text>
        </g>`;
      })}
    </svg>
    <figcaption>Slowest call per tool; the darker part is the median.</figcaption>
  </figure>`;
}
