// Plain server-rendered HTML for the host's people pages: one layout, escaping, and the headers
// every page carries. No script at all; one inline style block allowed by its hash.
// Invariants: every value placed in a page is escaped; no page is cached or framed, nor sends a
// Referer to another site (its URL carries a ticket; same-origin keeps the form's Origin, which
// the host's guard checks); nothing a person typed is ever rendered back.
import { createHash } from "node:crypto";

export function escapeHtml(value: string): string {
  return value
    .replaceAll("&", "&amp;")
    .replaceAll("<", "&lt;")
    .replaceAll(">", "&gt;")
    .replaceAll('"', "&quot;")
    .replaceAll("'", "&#39;");
}

const STYLE = `body{font:16px/1.5 system-ui,sans-serif;max-width:42rem;margin:2rem auto;padding:0 1rem;color:#1b1b1b}
h1{font-size:1.4rem}pre{background:#f4f4f4;padding:.75rem;overflow:auto;white-space:pre-wrap;word-break:break-word}
label{display:block;margin:.75rem 0 .25rem;font-weight:600}input[type=text],input[type=password]{width:100%;padding:.5rem;font:inherit;box-sizing:border-box}
button{margin:1rem .5rem 0 0;padding:.5rem 1.25rem;font:inherit;cursor:pointer}.note{color:#555}.error{color:#a00;font-weight:600}
dl{display:grid;grid-template-columns:max-content 1fr;gap:.25rem 1rem}dt{font-weight:600}`;
const STYLE_HASH = createHash("sha256").update(STYLE).digest("base64");

export const PAGE_HEADERS: Record<string, string> = {
  "content-type": "text/html; charset=utf-8",
  "cache-control": "no-store",
  "referrer-policy": "same-origin",
  "x-frame-options": "DENY",
  "content-security-policy": `default-src 'none'; style-src 'sha256-${STYLE_HASH}'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'`,
};

export function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="referrer" content="same-origin"><title>${escapeHtml(title)} · Airlock</title><style>${STYLE}</style></head>
<body><main>
<h1>${escapeHtml(title)}</h1>
${body}
</main></body></html>
`;
}

/** A page that only says something (done, gone, refused). */
export function notice(title: string, message: string, kind: "note" | "error" = "note"): string {
  return page(title, `<p class="${kind}">${escapeHtml(message)}</p>`);
}
