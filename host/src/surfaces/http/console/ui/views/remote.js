// Remote MCP servers installed as plugins (issue 20, docs/remote.md): install one (an
// mcp+https:// URL under a namespace; a private address only where the operator allows it; an
// optional static header whose value is one of the agents' secrets), see each server's pinned
// tools and which are refused, check what it lists now against the pins, and review a changed
// definition — the old and the new description side by side — before accepting it. Accepting
// sends the hashes that were shown (`expect`), so a server that changes again in between is
// refused rather than pinned unseen. Mark a tool read-only (no approval) or not.
import { useState } from "preact/hooks";
import { api } from "../api.js";
import { LoadError, useResource } from "../common.js";
import { Confirm } from "../confirm.js";
import { useFeedback } from "../feedback.js";
import { html } from "../html.js";

function InstallForm({ onInstalled }) {
  const { run } = useFeedback();
  const [url, setUrl] = useState("");
  const [ns, setNs] = useState("");
  const [allow, setAllow] = useState("");
  const [headerName, setHeaderName] = useState("");
  const [headerSecret, setHeaderSecret] = useState("");
  const install = (e) => {
    e.preventDefault();
    run(`Install ${url.trim()} as ${ns.trim()}`, async () => {
      const allowPrivate = allow
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean);
      const r = await api("POST", "/api/remote", {
        url: url.trim(),
        namespace: ns.trim(),
        ...(allowPrivate.length > 0 ? { allowPrivate } : {}),
        ...(headerName.trim() ? { header: { name: headerName.trim(), secret: headerSecret.trim() } } : {}),
      });
      setUrl("");
      setNs("");
      await onInstalled();
      return `Installed ${r.namespace} with ${r.tools.length} tool(s), their definitions pinned; enable them per agent.`;
    });
  };
  return html`<form class="card" onSubmit=${install} aria-labelledby="remote-new">
    <h2 id="remote-new">Install a remote server</h2>
    <label for="remote-url">Server URL</label>
    <p class="hint" id="remote-url-hint"><code>mcp+https://host/path</code> (streamable HTTP); <code>mcp+http://127.0.0.1:port/…</code> only with that address allowed below.</p>
    <input id="remote-url" required maxlength="2048" placeholder="mcp+https://mcp.example.com/mcp" aria-describedby="remote-url-hint" value=${url} onInput=${(e) => setUrl(e.currentTarget.value)} />
    <label for="remote-ns">Namespace</label>
    <p class="hint" id="remote-ns-hint">Its tools are listed as <em>namespace</em>:<em>tool</em>.</p>
    <input id="remote-ns" required pattern="[a-z][a-z0-9\\-]{1,31}" aria-describedby="remote-ns-hint" value=${ns} onInput=${(e) => setNs(e.currentTarget.value)} />
    <label for="remote-allow">Allowed private addresses</label>
    <p class="hint" id="remote-allow-hint">Comma-separated, e.g. <code>127.0.0.1</code>; empty: public addresses only.</p>
    <input id="remote-allow" aria-describedby="remote-allow-hint" value=${allow} onInput=${(e) => setAllow(e.currentTarget.value)} />
    <div class="row">
      <div><label for="remote-hname">Auth header (optional)</label><input id="remote-hname" placeholder="authorization" value=${headerName} onInput=${(e) => setHeaderName(e.currentTarget.value)} /></div>
      <div><label for="remote-hsecret">…its value from the secret</label><input id="remote-hsecret" placeholder="api_key" pattern="[a-z][a-z0-9_]*" value=${headerSecret} onInput=${(e) => setHeaderSecret(e.currentTarget.value)} /></div>
    </div>
    <button type="submit" class="primary">Install</button>
  </form>`;
}

function Review({ status, onAccept, onCancel }) {
  return html`<${Confirm} title=${`Review ${status.namespace}'s changed definitions`} confirmLabel="Accept and pin" onConfirm=${onAccept} onCancel=${onCancel}>
    <p>Until you accept, a changed tool is refused and the old definition stays pinned.</p>
    <ul class="changes">${status.changes.map(
      (
        c,
      ) => html`<li key=${c.tool} class="diff-part ${c.kind === "added" ? "add" : c.kind === "removed" ? "del" : "chg"}">
        <h3><code>${c.tool}</code> ${c.kind}</h3>
        ${c.pinnedDescription !== null && html`<div class="was"><strong>Pinned:</strong> ${c.pinnedDescription}</div>`}
        ${c.listedDescription !== null && html`<div class="now"><strong>Listed now:</strong> ${c.listedDescription}</div>`}
        ${c.pinnedDescription === c.listedDescription && c.kind === "changed" && html`<p class="meta">The description is the same: its parameters or result schema changed.</p>`}
        <p class="meta">hash ${c.pinnedHash ? c.pinnedHash.slice(0, 12) : "none"} → ${c.listedHash ? c.listedHash.slice(0, 12) : "none"}</p>
      </li>`,
    )}</ul>
  <//>`;
}

function ServerCard({ server, onChanged }) {
  const { run } = useFeedback();
  const [status, setStatus] = useState(null);
  const [reviewing, setReviewing] = useState(false);
  // Read-only marks just asked for, shown until the host's answer replaces them.
  const [pending, setPending] = useState({});
  const check = () =>
    run(`Check ${server.namespace} for changes`, async () => {
      const s = await api("GET", `/api/remote/${server.namespace}`);
      setStatus(s);
      if (s.changes.length === 0) return `${server.namespace} lists what is pinned: nothing to review.`;
      return { warn: `${server.namespace} lists ${s.changes.length} changed definition(s): review them.` };
    });
  const accept = () =>
    run(`Accept ${server.namespace}'s changes`, async () => {
      const expect = Object.fromEntries(status.changes.map((c) => [c.tool, c.listedHash]));
      const s = await api("POST", `/api/remote/${server.namespace}/review`, { expect });
      setReviewing(false);
      setStatus(null);
      await onChanged();
      return `${server.namespace} revision ${s.revision} pinned: ${s.changes.length} change(s) accepted.`;
    });
  const readOnly = (tool, value) =>
    run(`Mark ${tool.id} ${value ? "read-only" : "not read-only"}`, async () => {
      setPending((p) => ({ ...p, [tool.id]: value }));
      try {
        await api("PUT", `/api/remote/${server.namespace}/tools/${encodeURIComponent(tool.tool)}/read-only`, {
          readOnly: value,
        });
        await onChanged();
      } finally {
        setPending(({ [tool.id]: _, ...rest }) => rest);
      }
      return value
        ? `${tool.id} is read-only: its calls need no approval.`
        : `${tool.id} asks for approval again.`;
    });
  const refused = server.tools.filter((t) => t.refused).length;
  return html`<li class="card plugin">
    <h3>${server.namespace} <span class="version">rev ${server.revision}</span></h3>
    <p class="meta"><code>${server.url}</code>${server.server ? ` · ${server.server.name} ${server.server.version}` : ""}${server.header ? html` · header <code>${server.header.name}</code> from secret <code>${server.header.secret}</code>` : ""}</p>
    ${refused > 0 && html`<p class="state bad">${refused} tool(s) refused until you review their changed definitions.</p>`}
    <table class="list">
      <caption class="sr">Tools of ${server.namespace}</caption>
      <thead><tr><th scope="col">Tool</th><th scope="col">State</th><th scope="col">Read-only</th></tr></thead>
      <tbody>${server.tools.map(
        (t) => html`<tr key=${t.id}>
          <th scope="row"><code>${t.id}</code></th>
          <td data-label="State">${t.refused ? html`<span class="bad">refused: definition changed</span>` : html`<span class="ok">pinned</span>`}</td>
          <td data-label="Read-only"><label class="check"><input type="checkbox" checked=${pending[t.id] ?? t.readOnly} onChange=${(e) => readOnly(t, e.currentTarget.checked)} /> <span class="sr">${t.id} </span>read-only</label></td>
        </tr>`,
      )}</tbody>
    </table>
    <div class="actions">
      <button type="button" onClick=${check}>Check for changes</button>
      ${status && status.changes.length > 0 && html`<button type="button" class="primary" onClick=${() => setReviewing(true)}>Review ${status.changes.length} change(s)…</button>`}
    </div>
    ${reviewing && status && html`<${Review} status=${status} onAccept=${accept} onCancel=${() => setReviewing(false)} />`}
  </li>`;
}

export function RemoteScreen() {
  const [data, error, reload] = useResource("/api/remote");
  return html`<h1>Remote MCP servers</h1>
    <p class="lead">Tools of other MCP servers, served beside the plugins' through the same enablement, approvals, audit, limits and egress gate. Their definitions are pinned: a server that changes one is refused that tool until you review it here.</p>
    ${error && html`<${LoadError} error=${error} />`}
    ${data && data.servers.length === 0 && html`<p class="empty">No remote server is installed.</p>`}
    <ul class="plugins">${data?.servers.map((s) => html`<${ServerCard} key=${s.namespace} server=${s} onChanged=${reload} />`)}</ul>
    <${InstallForm} onInstalled=${reload} />`;
}
