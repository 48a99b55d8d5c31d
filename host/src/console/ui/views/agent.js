// One agent: tabs for its tools, its secrets and knowledge level, its tokens and its OAuth grants.
import { html } from "../html.js";
import { GrantsTab } from "./grants.js";
import { SecretsTab } from "./secrets.js";
import { TokensTab } from "./tokens.js";
import { ToolsTab } from "./tools.js";

const TABS = [
  ["tools", "Tools"],
  ["secrets", "Secrets & knowledge"],
  ["tokens", "Tokens"],
  ["grants", "OAuth grants"],
];

function Tab({ slug, tab }) {
  if (tab === "secrets") return html`<${SecretsTab} slug=${slug} />`;
  if (tab === "tokens") return html`<${TokensTab} slug=${slug} />`;
  if (tab === "grants") return html`<${GrantsTab} slug=${slug} />`;
  return html`<${ToolsTab} slug=${slug} />`;
}

export function AgentScreen({ slug, tab }) {
  return html`<p class="crumbs"><a href="#/agents">Agents</a> › </p>
    <h1>Agent <code>${slug}</code></h1>
    <p class="hint">MCP URL: <code>${location.origin}/mcp/${slug}</code></p>
    <nav aria-label="Agent" class="tabs">
      ${TABS.map(
        ([id, label]) =>
          html`<a href="#/agents/${slug}/${id}" aria-current=${tab === id ? "page" : undefined}>${label}</a>`,
      )}
    </nav>
    <${Tab} slug=${slug} tab=${tab} />`;
}
