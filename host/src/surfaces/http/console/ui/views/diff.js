// What a plugin change changes, as the operator reads it before confirming.
import { html } from "../html.js";

function List({ title, items, tone, render = (x) => html`<code>${x}</code>` }) {
  if (items.length === 0) return null;
  return html`<div class="diff-part ${tone}"><h3>${title}</h3><ul>${items.map((x) => html`<li>${render(x)}</li>`)}</ul></div>`;
}

export function DiffView({ diff }) {
  const nothing =
    diff.toolsAdded.length +
      diff.toolsRemoved.length +
      diff.toolsChanged.length +
      diff.secretsAdded.length +
      diff.secretsRemoved.length +
      diff.egressAdded.length +
      diff.egressRemoved.length ===
      0 && diff.knowledge === null;
  return html`<div class="diff">
    <p><strong>${diff.namespace}</strong> ${diff.from === null ? html`new, version ${diff.to}` : html`${diff.from} → ${diff.to}`}</p>
    ${nothing && html`<p class="muted">No change to tools, secrets, egress hosts or knowledge level.</p>`}
    <${List} title="Tools added (a tool an agent never enabled starts disabled)" items=${diff.toolsAdded} tone="add" />
    <${List} title="Tools removed" items=${diff.toolsRemoved} tone="del" />
    <${List}
      title="Tools changed"
      items=${diff.toolsChanged}
      tone="chg"
      render=${(c) =>
        html`<code>${c.tool}</code>: ${[
          c.description ? "description" : null,
          c.inputSchema ? "parameters (input schema)" : null,
          c.annotations ? "annotations" : null,
        ]
          .filter(Boolean)
          .join(
            ", ",
          )}${c.description ? html`<div class="was">was: ${c.description.from}</div><div class="now">now: ${c.description.to}</div>` : ""}`}
    />
    <${List} title="New secrets asked for" items=${diff.secretsAdded} tone="add" />
    <${List} title="Secrets no longer used" items=${diff.secretsRemoved} tone="del" />
    <${List} title="New egress hosts (outbound HTTP)" items=${diff.egressAdded} tone="add" />
    <${List} title="Egress hosts dropped" items=${diff.egressRemoved} tone="del" />
    ${diff.knowledge && html`<div class="diff-part chg"><h3>Knowledge level asked for</h3><p>${diff.knowledge.from ?? "none"} → ${diff.knowledge.to ?? "none"} (you grant levels per agent)</p></div>`}
  </div>`;
}
