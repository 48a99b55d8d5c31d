// Server-rendered HTML for the host's people pages, in the console's look (its stylesheet,
// /admin/app.css, and top bar): one layout, escaping, times in words, and the headers every page
// carries. No script and no inline style at all.
// Invariants: every value placed in a page is escaped; no page is cached or framed, nor sends a
// Referer to another site (its URL carries a ticket; same-origin keeps the form's Origin, which
// the host's guard checks); nothing a person typed is ever rendered back.
export function escapeHtml(value: string): string {
  return value
    .replaceAll("&", "&amp;")
    .replaceAll("<", "&lt;")
    .replaceAll(">", "&gt;")
    .replaceAll('"', "&quot;")
    .replaceAll("'", "&#39;");
}

export const PAGE_HEADERS: Record<string, string> = {
  "content-type": "text/html; charset=utf-8",
  "cache-control": "no-store",
  "referrer-policy": "same-origin",
  "x-frame-options": "DENY",
  // the console's own stylesheet (/admin/app.css), from this origin; no inline style, no script
  "content-security-policy":
    "default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
};

/**
 * The console's look for a page without script: its stylesheet, its top bar (the brand and what
 * the page is), one main column (`mainClass`: `people`, or `consent` for the consent page).
 */
export function layout(title: string, body: string, mainClass = "people"): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="referrer" content="same-origin"><title>${escapeHtml(title)} · Airlock</title><link rel="stylesheet" href="/admin/app.css"></head>
<body><header class="top"><span class="brand">Airlock</span></header>
<main id="main" class="${escapeHtml(mainClass)}">
${body}
</main></body></html>
`;
}

/** A people page: its title as the heading, its body in one card. */
export function page(title: string, body: string): string {
  return layout(title, `<h1>${escapeHtml(title)}</h1>\n<div class="card">\n${body}\n</div>`);
}

/** A page that only says something (done, gone, refused). */
export function notice(title: string, message: string, kind: "note" | "error" = "note"): string {
  const role = kind === "error" ? ' role="alert"' : "";
  return page(title, `<p class="${kind === "error" ? "error" : "notice"}"${role}>${escapeHtml(message)}</p>`);
}

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/** How long ago `then` was, in words: "just now", "1 minute ago", "3 hours ago", "2 days ago". */
export function ago(then: Date, now: Date): string {
  const s = Math.max(0, Math.round((now.getTime() - then.getTime()) / 1000));
  const unit = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"} ago`;
  if (s < 45) return "just now";
  if (s < 3600) return unit(Math.max(1, Math.round(s / 60)), "minute");
  if (s < 86_400) return unit(Math.round(s / 3600), "hour");
  return unit(Math.round(s / 86_400), "day");
}

/**
 * A time for a person, as the server can say it without knowing the reader's time zone (a page
 * has no script): "3 minutes ago (7 Dec 2026, 06:12 UTC)", in a <time> that carries the ISO form.
 */
export function humanTime(iso: string, now = new Date()): string {
  const t = new Date(iso);
  if (Number.isNaN(t.getTime())) return escapeHtml(iso);
  const hh = String(t.getUTCHours()).padStart(2, "0");
  const mm = String(t.getUTCMinutes()).padStart(2, "0");
  const day = `${t.getUTCDate()} ${MONTHS[t.getUTCMonth()]} ${t.getUTCFullYear()}, ${hh}:${mm} UTC`;
  return `<time datetime="${escapeHtml(t.toISOString())}">${ago(t, now)} (${day})</time>`;
}
