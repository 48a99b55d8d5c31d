// An identifier (a tool id, an audit action, an error code) shown whole: it may wrap only after
// its separators (`:`, `.`, `_`, `-`, `/`), never inside a word, however narrow its column.
import { html } from "./html.js";

/** The text cut after each separator, with a line-break opportunity (<wbr>) between the pieces. */
export function identPieces(text) {
  return String(text).split(/(?<=[:._\-/])/);
}

/** `whole`: a short identifier kept on one line (no break opportunity at all). */
export function Ident({ text, class: cls = "", whole = false }) {
  if (whole) return html`<code class=${`ident whole ${cls}`.trim()}>${text}</code>`;
  const pieces = identPieces(text);
  return html`<code class=${`ident ${cls}`.trim()}>${pieces.map((p, i) => html`${i > 0 ? html`<wbr />` : ""}${p}`)}</code>`;
}
