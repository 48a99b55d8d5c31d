// One agent: tabs for its tools, its secrets and knowledge level, and its tokens.
import { html } from "../html.js";
import { SecretsTab } from "./secrets.js";
import { TokensTab } from "./tokens.js";
import { ToolsTab } from "./tools.js";

const TABS = [
  ["tools", "Tools"],
  ["secrets", "Secrets & knowledge"],
  ["tokens", "Tokens"],
];

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
    ${tab === "secrets" ? html`<${SecretsTab} slug=${slug} />` : tab === "tokens" ? html`<${TokensTab} slug=${slug} />` : html`<${ToolsTab} slug=${slug} />`}`;
}
