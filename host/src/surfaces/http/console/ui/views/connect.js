// "Connect an MCP client" on an agent's page: the agent's MCP URL with an agent token as an
// `Authorization: Bearer` header, as ready-made configs to copy for Cursor, VS Code, Claude
// Desktop (through the mcp-remote bridge: its config file starts local commands, it takes no URL)
// and the MCP Inspector's CLI. The HTTP shapes are those `airlock start` prints
// (host/src/surfaces/cli/client-config.ts).
// Invariants: a config is shown only with a token in it, so each works as printed: one issued here
// (an agent token of this agent, shown once, like the tokens tab's) or one the operator pastes,
// which stays in this page (never sent anywhere); every JSON value comes from JSON.stringify.
import { useState } from "preact/hooks";
import { api } from "../api.js";
import { useFeedback } from "../feedback.js";
import { html } from "../html.js";

/** Quotes a word for a POSIX shell when it needs it (as client-config.ts does). */
function shellWord(word) {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'"'"'`)}'`;
}

const isLoopback = (url) => ["localhost", "127.0.0.1", "[::1]"].includes(new URL(url).hostname);

/** The configs for `url` with `token`: [{id, label, where, text}]. */
export function clientConfigs(slug, url, token) {
  const name = `airlock-${slug}`;
  const headers = { Authorization: `Bearer ${token}` };
  // mcp-remote takes plain http only on loopback unless told; the header comes from the env
  // (no space in the argument: some clients split arguments on spaces).
  const plainHttp = url.startsWith("http://") && !isLoopback(url) ? ["--allow-http"] : [];
  const desktop = {
    command: "npx",
    // biome-ignore lint/suspicious/noTemplateCurlyInString: mcp-remote itself puts the env var in
    args: ["-y", "mcp-remote", url, "--header", "Authorization:${AUTH_HEADER}", ...plainHttp],
    env: { AUTH_HEADER: `Bearer ${token}` },
  };
  // -y: npx installs it without asking, so the line also runs where no one can answer (a script)
  const inspector = ["npx", "-y", "@modelcontextprotocol/inspector", "--cli", url, "--transport", "http"];
  inspector.push("--header", `Authorization: Bearer ${token}`, "--method", "tools/list");
  return [
    {
      id: "cursor",
      label: "Cursor",
      where: "~/.cursor/mcp.json (or .cursor/mcp.json in a project); other mcpServers clients take it too",
      text: JSON.stringify({ mcpServers: { [name]: { url, headers } } }, null, 2),
    },
    {
      id: "vscode",
      label: "VS Code",
      where: ".vscode/mcp.json in the workspace (or the user's mcp.json)",
      text: JSON.stringify({ servers: { [name]: { type: "http", url, headers } } }, null, 2),
    },
    {
      id: "claude-desktop",
      label: "Claude Desktop",
      where: "claude_desktop_config.json (Settings › Developer › Edit Config); needs Node's npx",
      text: JSON.stringify({ mcpServers: { [name]: desktop } }, null, 2),
    },
    {
      id: "inspector",
      label: "MCP Inspector (CLI)",
      where: "a terminal: lists the agent's tools",
      text: inspector.map(shellWord).join(" "),
    },
  ];
}

function Config({ config }) {
  const [copied, setCopied] = useState(false);
  const id = `config-${config.id}`;
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(config.text);
      setCopied(true);
    } catch {
      document.getElementById(id)?.select(); // no clipboard here: select it for Ctrl+C
    }
  };
  return html`<div class="client-config">
    <label for=${id}>${config.label}</label>
    <p class="hint">${config.where}</p>
    <textarea id=${id} class="config-text" readonly rows=${config.text.includes("\n") ? config.text.split("\n").length : 3} spellcheck="false"
      value=${config.text} onFocus=${(e) => e.currentTarget.select()}></textarea>
    <button type="button" onClick=${copy} aria-label=${`Copy the ${config.label} config`}>${copied ? "Copied" : "Copy"}</button>
  </div>`;
}

export function ConnectClient({ slug }) {
  const { run } = useFeedback();
  const [token, setToken] = useState("");
  const [issued, setIssued] = useState(false);
  const url = `${location.origin}/mcp/${slug}`;
  const issue = () =>
    run(`Issue a token for an MCP client of ${slug}`, async () => {
      const res = await api("POST", "/api/tokens", {
        role: "agent",
        agent: slug,
        label: `MCP client config, ${new Date().toISOString().slice(0, 10)}`,
      });
      setToken(res.token);
      setIssued(true);
      return `Token ${res.record.id} issued for ${slug} and put in the configs below: copy one now, it is shown once.`;
    });
  return html`<details class="card connect">
    <summary>Connect an MCP client</summary>
    <p>The configs below reach <code>${url}</code> with an agent token as <code>Authorization: Bearer …</code>. Issue a token for them, or paste one of this agent's tokens you kept.</p>
    <div class="row">
      <button type="button" class="primary" onClick=${issue}>Issue a token for a client</button>
    </div>
    <label for="connect-token">Agent token in the configs</label>
    <input id="connect-token" type="text" autocomplete="off" spellcheck="false" placeholder="alk_ag_…"
      value=${token} onInput=${(e) => {
        setToken(e.currentTarget.value.trim());
        setIssued(false);
      }} />
    ${issued && html`<p class="warn">This token is shown once: the host keeps only a hash of it.</p>`}
    ${
      token === ""
        ? html`<p class="hint">The configs appear here once there is a token to put in them.</p>`
        : clientConfigs(slug, url, token).map((c) => html`<${Config} key=${c.id} config=${c} />`)
    }
  </details>`;
}
