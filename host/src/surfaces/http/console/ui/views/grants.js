// The OAuth grants MCP clients hold for one agent (given on the consent page): the client, the
// audience (the agent's MCP URL), when, and whether it was revoked; revoke one after a
// confirmation, which ends its access and refresh tokens at once. No token is ever shown here.
import { useState } from "preact/hooks";
import { api } from "../api.js";
import { LoadError, useResource, when } from "../common.js";
import { Confirm } from "../confirm.js";
import { useFeedback } from "../feedback.js";
import { html } from "../html.js";

export function GrantsTab({ slug }) {
  const [data, error, reload] = useResource(`/api/agents/${slug}/oauth-grants`);
  const { run } = useFeedback();
  const [revoking, setRevoking] = useState(null);
  const nameOf = (g) => g.clientName || g.clientId;
  const revoke = () =>
    run(`Revoke the grant to ${nameOf(revoking)}`, async () => {
      await api("DELETE", `/api/agents/${slug}/oauth-grants/${revoking.id}`);
      const name = nameOf(revoking);
      setRevoking(null);
      await reload();
      return `Grant to ${name} revoked: its tokens are refused from now on.`;
    });
  return html`<h2>OAuth grants</h2>
    <p class="lead">MCP clients you approved on the consent page. Their access tokens work only at <code>${location.origin}/mcp/${slug}</code>, expire and are refreshed until you revoke the grant.</p>
    ${error && html`<${LoadError} error=${error} />`}
    ${
      data &&
      (data.grants.length === 0
        ? html`<p class="empty">No MCP client has connected to this agent with OAuth yet.</p>`
        : html`<table class="list">
        <caption class="sr">OAuth grants of ${slug}</caption>
        <thead><tr><th scope="col">Client</th><th scope="col">Granted</th><th scope="col">State</th><th scope="col"><span class="sr">Actions</span></th></tr></thead>
        <tbody>${data.grants.map(
          (g) => html`<tr key=${g.id}>
            <th scope="row">${nameOf(g)} <span class="muted">${g.clientId}</span></th>
            <td data-label="Granted">${when(g.createdAt)}</td>
            <td data-label="State">${g.revokedAt === null ? html`<span class="badge ok">active</span>` : html`<span class="badge bad">revoked ${when(g.revokedAt)}</span>`}</td>
            ${
              g.revokedAt === null
                ? html`<td class="actions"><button type="button" class="danger" onClick=${() => setRevoking(g)} aria-label=${`Revoke the grant to ${nameOf(g)}`}>Revoke</button></td>`
                : html`<td><span class="muted">—</span></td>`
            }
          </tr>`,
        )}</tbody>
      </table>`)
    }
    ${
      revoking &&
      html`<${Confirm} title="Revoke this grant?" confirmLabel="Revoke grant" danger onConfirm=${revoke} onCancel=${() => setRevoking(null)}>
        <p><strong>${nameOf(revoking)}</strong> (${revoking.id}) loses access to ${slug} at once; it must ask for your consent again.</p>
      <//>`
    }`;
}
