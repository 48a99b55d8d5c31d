// One agent: its MCP URL with client configs to copy (connect.js), then tabs for its tools, its secrets and knowledge level, its tokens, its OAuth
// connections and model grants, the OAuth grants of MCP clients, who approves its calls (people
// in the loop), and code mode.
import { html } from "../html.js";
import { CodeModeTab } from "./code-mode.js";
import { ConnectClient } from "./connect.js";
import { ConnectionsTab } from "./connections.js";
import { GrantsTab } from "./grants.js";
import { PeopleTab } from "./people.js";
import { SecretsTab } from "./secrets.js";
import { TokensTab } from "./tokens.js";
import { ToolsTab } from "./tools.js";

const TABS = [
  ["tools", "Tools"],
  ["secrets", "Secrets & knowledge"],
  ["tokens", "Tokens"],
  ["connections", "Connections & models"],
  ["grants", "OAuth grants"],
  ["people", "Approvals & asking"],
  ["code-mode", "Code mode"],
];

const SCREENS = {
  secrets: SecretsTab,
  tokens: TokensTab,
  connections: ConnectionsTab,
  grants: GrantsTab,
  people: PeopleTab,
  "code-mode": CodeModeTab,
};

export function AgentScreen({ slug, tab }) {
  return html`<p class="crumbs"><a href="#/agents">Agents</a> › </p>
    <h1>Agent <code>${slug}</code></h1>
    <p class="hint">MCP URL: <code>${location.origin}/mcp/${slug}</code></p>
    <${ConnectClient} slug=${slug} />
    <nav aria-label="Agent" class="tabs">
      ${TABS.map(
        ([id, label]) =>
          html`<a href="#/agents/${slug}/${id}" aria-current=${tab === id ? "page" : undefined}>${label}</a>`,
      )}
    </nav>
    ${html`<${SCREENS[tab] ?? ToolsTab} slug=${slug} />`}`;
}
