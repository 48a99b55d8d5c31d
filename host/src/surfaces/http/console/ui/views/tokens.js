// The agent's tokens by label, prefix and id (never a value after it was issued); issue one
// (shown once) and revoke one after a confirmation.
import { useState } from "preact/hooks";
import { api } from "../api.js";
import { LoadError, TokenOnce, useResource, when } from "../common.js";
import { Confirm } from "../confirm.js";
import { useFeedback } from "../feedback.js";
import { html } from "../html.js";

export function TokensTab({ slug }) {
  const [data, error, reload] = useResource(`/api/tokens?agent=${slug}`);
  const { run } = useFeedback();
  const [label, setLabel] = useState("");
  const [fresh, setFresh] = useState(null);
  const [revoking, setRevoking] = useState(null);
  const issue = (e) => {
    e.preventDefault();
    run("Issue a token", async () => {
      const res = await api("POST", "/api/tokens", {
        role: "agent",
        agent: slug,
        label: label.trim() || `console, ${new Date().toISOString().slice(0, 10)}`,
      });
      setFresh(res.token);
      setLabel("");
      await reload();
      return `Token ${res.record.id} issued for ${slug}: copy it now.`;
    });
  };
  const revoke = () =>
    run(`Revoke ${revoking.id}`, async () => {
      await api("DELETE", `/api/tokens/${revoking.id}`);
      setRevoking(null);
      await reload();
      return `Token ${revoking.id} revoked: clients using it are refused from now on.`;
    });
  return html`<h2>Tokens</h2>
    <p class="lead">A client (an MCP client, a model runner) presents one of these as <code>Authorization: Bearer …</code> to reach this agent's tools.</p>
    ${error && html`<${LoadError} error=${error} />`}
    ${fresh && html`<${TokenOnce} token=${fresh} onDone=${() => setFresh(null)} />`}
    ${
      data &&
      (data.tokens.length === 0
        ? html`<p class="empty">This agent has no token: no client can reach it yet.</p>`
        : html`<table class="list">
        <caption class="sr">Tokens of ${slug}</caption>
        <thead><tr><th scope="col">Label</th><th scope="col">Token</th><th scope="col">Issued</th><th scope="col"><span class="sr">Actions</span></th></tr></thead>
        <tbody>${data.tokens.map(
          (t) => html`<tr key=${t.id}>
            <th scope="row">${t.label || html`<span class="muted">no label</span>`}</th>
            <td data-label="Token"><code>${t.prefix}…</code> <span class="muted">${t.id}</span></td>
            <td data-label="Issued">${when(t.createdAt)}</td>
            <td class="actions"><button type="button" class="danger" onClick=${() => setRevoking(t)} aria-label=${`Revoke token ${t.label || t.id}`}>Revoke</button></td>
          </tr>`,
        )}</tbody>
      </table>`)
    }
    <form class="card" onSubmit=${issue}>
      <h3>Issue a token</h3>
      <label for="token-label">Label</label>
      <p class="hint" id="label-hint">What it is for, to recognise it later (e.g. "claude desktop on laptop").</p>
      <div class="row"><input id="token-label" maxlength="200" aria-describedby="label-hint" value=${label} onInput=${(e) => setLabel(e.currentTarget.value)} />
      <button type="submit" class="primary">Issue token</button></div>
    </form>
    ${
      revoking &&
      html`<${Confirm} title="Revoke this token?" confirmLabel="Revoke token" danger onConfirm=${revoke} onCancel=${() => setRevoking(null)}>
        <p>Token <strong>${revoking.label || revoking.id}</strong> (<code>${revoking.prefix}…</code>, ${revoking.id}) stops working at once for every client that uses it.</p>
      <//>`
    }`;
}
