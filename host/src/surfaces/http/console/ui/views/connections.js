// An agent's brokered credentials (issue 19): its OAuth connections by provider, plugin, subject
// and scopes — never a token — with a connect link for a provider a plugin declares, and
// disconnect (revoked at the provider when it can be); then its plugins' model grants with their
// budget and this period's usage, grant one (a connection, tokens and/or calls per period) and
// revoke one. Every change is confirmed or reported in the status line.
import { useState } from "preact/hooks";
import { api } from "../api.js";
import { LoadError, useResource, when } from "../common.js";
import { Confirm } from "../confirm.js";
import { useFeedback } from "../feedback.js";
import { html } from "../html.js";

function OAuthSection({ slug, declared }) {
  const [data, error, reload] = useResource(`/api/agents/${slug}/oauth`);
  const { run } = useFeedback();
  const [link, setLink] = useState(null);
  const [leaving, setLeaving] = useState(null);
  const connect = (p) =>
    run(`Make a connect link for ${p.provider}`, async () => {
      const r = await api("POST", `/api/agents/${slug}/oauth/${p.provider}/link`, { plugin: p.plugin });
      setLink({ ...p, url: r.url });
      return `Connect link for ${p.provider} made: open it (valid 15 minutes).`;
    });
  const disconnect = () =>
    run(`Disconnect ${leaving.provider}`, async () => {
      const q = leaving.subject ? `?subject=${encodeURIComponent(leaving.subject)}` : "";
      const r = await api("DELETE", `/api/agents/${slug}/oauth/${leaving.provider}${q}`);
      setLeaving(null);
      await reload();
      return r.disconnected
        ? `${leaving.provider} disconnected from ${slug}.`
        : `${leaving.provider} was not connected.`;
    });
  const rows = data?.connections ?? [];
  return html`<section aria-labelledby="oauth-h">
    <h2 id="oauth-h">OAuth connections</h2>
    <p class="lead">Accounts this agent's tools act for. The host keeps the tokens, encrypted; a tool's requests carry them only toward its provider's API hosts, and nothing here shows one.</p>
    ${error && html`<${LoadError} error=${error} />`}
    ${
      data &&
      (rows.length === 0
        ? html`<p class="empty">No account is connected for ${slug}.</p>`
        : html`<table class="list">
          <caption class="sr">OAuth connections of ${slug}</caption>
          <thead><tr><th scope="col">Provider</th><th scope="col">Plugin</th><th scope="col">Scopes</th><th scope="col">Expires</th><th scope="col"><span class="sr">Actions</span></th></tr></thead>
          <tbody>${rows.map(
            (c) => html`<tr key=${`${c.provider}/${c.subject}`}>
              <th scope="row">${c.provider}${c.subject ? html` <span class="muted">for ${c.subject}</span>` : ""}</th>
              <td data-label="Plugin"><code>${c.plugin}</code></td>
              <td data-label="Scopes">${c.scopes.length === 0 ? html`<span class="muted">none</span>` : c.scopes.map((s, i) => html`${i > 0 ? " " : ""}<code>${s}</code>`)}</td>
              <td data-label="Expires">${c.expiresAt ? when(c.expiresAt) : "no expiry"}${c.refreshable ? " · refreshed by the host" : ""}</td>
              <td class="actions"><button type="button" class="danger" onClick=${() => setLeaving(c)} aria-label=${`Disconnect ${c.provider}`}>Disconnect</button></td>
            </tr>`,
          )}</tbody>
        </table>`)
    }
    ${
      declared.length > 0 &&
      html`<div class="card"><h3>Connect an account</h3>
        <ul class="plain">${declared.map(
          (p) => html`<li key=${`${p.plugin}/${p.provider}`}>
            <button type="button" onClick=${() => connect(p)}>Connect ${p.provider}</button>
            <span class="meta"> for <code>${p.plugin}</code>; asks for ${p.scopes.length === 0 ? "no scope" : p.scopes.join(" ")}</span>
          </li>`,
        )}</ul>
        ${
          link &&
          html`<p role="region" aria-label="Connect link">Open <a href=${link.url} target="_blank" rel="noopener noreferrer">the ${link.provider} sign-in</a> in the browser of the person whose account it is; the page comes back to the host, which stores the token. <button type="button" class="link" onClick=${reload}>Refresh the list</button></p>`
        }
      </div>`
    }
    ${
      leaving &&
      html`<${Confirm} title=${`Disconnect ${leaving.provider}?`} confirmLabel="Disconnect" danger onConfirm=${disconnect} onCancel=${() => setLeaving(null)}>
        <p>The token is revoked at ${leaving.provider} (when it offers revocation) and forgotten. Tools of <code>${leaving.plugin}</code> then ask the person to connect again.</p>
      <//>`
    }
  </section>`;
}

const num = (v) => (v.trim() === "" ? null : Number(v));

function GrantForm({ slug, declared, connections, onSaved }) {
  const { run } = useFeedback();
  const [plugin, setPlugin] = useState(declared[0]?.plugin ?? "");
  const [connection, setConnection] = useState(connections[0]?.name ?? "");
  const [maxTokens, setMaxTokens] = useState("");
  const [maxCalls, setMaxCalls] = useState("");
  const [period, setPeriod] = useState("day");
  const grant = (e) => {
    e.preventDefault();
    run(`Grant ${plugin} the model connection ${connection}`, async () => {
      await api("PUT", `/api/agents/${slug}/models/${plugin}`, {
        connection,
        maxTokens: num(maxTokens),
        maxCalls: num(maxCalls),
        period,
      });
      await onSaved();
      return `${plugin} may call ${connection} for ${slug}.`;
    });
  };
  if (connections.length === 0)
    return html`<p class="hint">No model connection exists yet: add one with <code>PUT /api/models/:name</code> (docs/oauth.md).</p>`;
  return html`<form class="card" onSubmit=${grant} aria-labelledby="grant-h">
    <h3 id="grant-h">Grant a model connection</h3>
    <label for="grant-plugin">Plugin</label>
    <select id="grant-plugin" value=${plugin} onChange=${(e) => setPlugin(e.currentTarget.value)} required>
      ${declared.map((d) => html`<option value=${d.plugin}>${d.plugin} — ${d.reason}</option>`)}
    </select>
    <label for="grant-conn">Connection</label>
    <select id="grant-conn" value=${connection} onChange=${(e) => setConnection(e.currentTarget.value)} required>
      ${connections.map((c) => html`<option value=${c.name}>${c.name} (${c.model})</option>`)}
    </select>
    <div class="row">
      <div><label for="grant-tokens">Tokens per period</label><input id="grant-tokens" type="number" min="0" step="1" inputmode="numeric" placeholder="no cap" value=${maxTokens} onInput=${(e) => setMaxTokens(e.currentTarget.value)} /></div>
      <div><label for="grant-calls">Calls per period</label><input id="grant-calls" type="number" min="0" step="1" inputmode="numeric" placeholder="no cap" value=${maxCalls} onInput=${(e) => setMaxCalls(e.currentTarget.value)} /></div>
      <div><label for="grant-period">Period</label><select id="grant-period" value=${period} onChange=${(e) => setPeriod(e.currentTarget.value)}>
        <option value="day">a day</option><option value="month">a month</option><option value="total">in total</option>
      </select></div>
    </div>
    <button type="submit" class="primary" disabled=${plugin === ""}>Grant</button>
  </form>`;
}

function ModelsSection({ slug, declared }) {
  const [data, error, reload] = useResource(`/api/agents/${slug}/models`);
  const [conns] = useResource("/api/models");
  const { run } = useFeedback();
  const [revoking, setRevoking] = useState(null);
  const revoke = () =>
    run(`Revoke ${revoking.plugin}'s model grant`, async () => {
      await api("DELETE", `/api/agents/${slug}/models/${revoking.plugin}`);
      setRevoking(null);
      await reload();
      return `${revoking.plugin} may no longer call ${revoking.connection} for ${slug}.`;
    });
  const cap = (n, unit) => (n === null ? `no ${unit} cap` : `${n} ${unit}`);
  return html`<section aria-labelledby="models-h">
    <h2 id="models-h">Model grants</h2>
    <p class="lead">Plugins that call models do so through the host, which holds the provider key, counts usage and stops a call past the budget.</p>
    ${error && html`<${LoadError} error=${error} />`}
    ${
      data &&
      (data.grants.length === 0
        ? html`<p class="empty">No plugin of ${slug} may call a model.</p>`
        : html`<table class="list">
          <caption class="sr">Model grants of ${slug}</caption>
          <thead><tr><th scope="col">Plugin</th><th scope="col">Connection</th><th scope="col">Budget</th><th scope="col">Used</th><th scope="col"><span class="sr">Actions</span></th></tr></thead>
          <tbody>${data.grants.map(
            (g) => html`<tr key=${g.plugin}>
              <th scope="row"><code>${g.plugin}</code></th>
              <td data-label="Connection">${g.connection}</td>
              <td data-label="Budget">${cap(g.maxTokens, "tokens")}, ${cap(g.maxCalls, "calls")} ${g.period === "total" ? "in total" : `a ${g.period}`}</td>
              <td data-label="Used">${g.used.tokens} tokens, ${g.used.calls} calls <span class="muted">(${g.used.period})</span></td>
              <td class="actions"><button type="button" class="danger" onClick=${() => setRevoking(g)} aria-label=${`Revoke the model grant of ${g.plugin}`}>Revoke</button></td>
            </tr>`,
          )}</tbody>
        </table>`)
    }
    ${declared.length > 0 && conns && html`<${GrantForm} slug=${slug} declared=${declared} connections=${conns.connections} onSaved=${reload} />`}
    ${
      revoking &&
      html`<${Confirm} title=${`Revoke ${revoking.plugin}'s model grant?`} confirmLabel="Revoke grant" danger onConfirm=${revoke} onCancel=${() => setRevoking(null)}>
        <p>Calls of <code>${revoking.plugin}</code> to ${revoking.connection} for ${slug} are refused from now on; its usage so far stays in the audit log.</p>
      <//>`
    }
  </section>`;
}

export function ConnectionsTab({ slug }) {
  const [declared, error] = useResource("/api/broker/declared");
  if (error) return html`<${LoadError} error=${error} />`;
  if (declared === null) return html`<p class="loading">Loading…</p>`;
  return html`<${OAuthSection} slug=${slug} declared=${declared.providers} />
    <${ModelsSection} slug=${slug} declared=${declared.models} />`;
}
