// Agents: every agent with what it is served, create one (optionally with a token, shown once),
// delete one after seeing what that removes.
import { useEffect, useState } from "preact/hooks";
import { api } from "../api.js";
import { LoadError, TokenOnce, useResource, when } from "../common.js";
import { Confirm } from "../confirm.js";
import { useFeedback } from "../feedback.js";
import { html } from "../html.js";

function Counts({ slug }) {
  const [counts, setCounts] = useState(null);
  useEffect(() => {
    api("GET", `/api/agents/${slug}/tools`).then(
      ({ tools }) =>
        setCounts({
          enabled: tools.filter((t) => t.enabled).length,
          served: tools.filter((t) => t.served).length,
          blocked: tools.filter((t) => t.enabled && !t.served).length,
        }),
      () => setCounts(null),
    );
  }, [slug]);
  if (counts === null) return html`<span class="muted">…</span>`;
  return html`<span>${counts.served} served</span>${
    counts.blocked > 0 ? html` · <span class="warn">${counts.blocked} enabled but not served</span>` : ""
  }${counts.enabled === 0 ? html` · <span class="muted">nothing enabled yet</span>` : ""}`;
}

export function AgentsScreen() {
  const [data, error, reload] = useResource("/api/agents");
  const { run } = useFeedback();
  const [slug, setSlug] = useState("");
  const [withToken, setWithToken] = useState(true);
  const [fresh, setFresh] = useState(null);
  const [removing, setRemoving] = useState(null);

  const create = (e) => {
    e.preventDefault();
    const name = slug.trim();
    run(`Create agent ${name}`, async () => {
      const res = await api("POST", "/api/agents", { slug: name, token: withToken });
      setSlug("");
      setFresh(res.token?.token ?? null);
      await reload();
      return res.token
        ? `Agent ${name} created with a token (copy it below).`
        : `Agent ${name} ${res.agent ? "is ready" : "created"}.`;
    });
  };
  const askRemove = (agent) =>
    run(`Look up what deleting ${agent} removes`, async () => {
      setRemoving(await api("GET", `/api/agents/${agent}/removal`));
      return `Deleting ${agent} needs a confirmation.`;
    });
  const remove = () =>
    run(`Delete agent ${removing.agent}`, async () => {
      const res = await api("DELETE", `/api/agents/${removing.agent}`);
      setRemoving(null);
      await reload();
      return `Agent ${res.agent} deleted with ${res.tokens.length} token(s), ${res.secrets.length} secret(s), ${res.knowledgeDocuments} knowledge document(s).`;
    });

  return html`<h1>Agents</h1>
    <p class="lead">An agent is one consumer of tools (a model client, an MCP client). Open one to choose its tools, fill in their secrets and issue its tokens.</p>
    ${error && html`<${LoadError} error=${error} />`}
    ${fresh && html`<${TokenOnce} token=${fresh} onDone=${() => setFresh(null)} />`}
    ${
      data &&
      (data.agents.length === 0
        ? html`<p class="empty">No agents yet: create one below.</p>`
        : html`<table class="list">
          <caption class="sr">Agents</caption>
          <thead><tr><th scope="col">Agent</th><th scope="col">Tools</th><th scope="col">Knowledge</th><th scope="col">Created</th><th scope="col"><span class="sr">Actions</span></th></tr></thead>
          <tbody>
            ${data.agents.map(
              (a) => html`<tr key=${a.slug}>
                <th scope="row"><a href="#/agents/${a.slug}/tools">${a.slug}</a></th>
                <td data-label="Tools"><${Counts} slug=${a.slug} /></td>
                <td data-label="Knowledge">${a.knowledgeLevel}</td>
                <td data-label="Created">${when(a.createdAt)}</td>
                <td class="actions"><button type="button" class="danger" onClick=${() => askRemove(a.slug)} aria-label=${`Delete agent ${a.slug}`}>Delete</button></td>
              </tr>`,
            )}
          </tbody>
        </table>`)
    }
    <form class="card" onSubmit=${create} aria-labelledby="new-agent">
      <h2 id="new-agent">New agent</h2>
      <label for="agent-slug">Name (slug)</label>
      <p class="hint" id="slug-hint">Lowercase letters, digits and -, up to 64 characters. It names the agent's MCP URL: /mcp/<em>name</em>.</p>
      <input id="agent-slug" required pattern="[a-z0-9][a-z0-9\\-]{0,63}" aria-describedby="slug-hint"
        value=${slug} onInput=${(e) => setSlug(e.currentTarget.value)} />
      <label class="check"><input type="checkbox" checked=${withToken} onChange=${(e) => setWithToken(e.currentTarget.checked)} /> Issue a token for it</label>
      <button class="primary" type="submit">Create agent</button>
    </form>
    ${
      removing &&
      html`<${Confirm} title=${`Delete agent ${removing.agent}?`} confirmLabel="Delete agent" danger onConfirm=${remove} onCancel=${() => setRemoving(null)}>
        <p>This removes, for good:</p>
        <ul>
          <li>${removing.tokens.length} token(s)${removing.tokens.length > 0 ? `: ${removing.tokens.map((t) => t.label || t.id).join(", ")}` : ""} — clients using them are refused at once</li>
          <li>${removing.enabledTools.length} enabled tool(s)${removing.enabledTools.length > 0 ? `: ${removing.enabledTools.join(", ")}` : ""}</li>
          <li>${removing.secrets.length} secret(s)${removing.secrets.length > 0 ? `: ${removing.secrets.join(", ")}` : ""}</li>
          <li>${removing.knowledgeDocuments} knowledge document(s), its conversation state and artifacts</li>
          ${removing.pendingApprovals > 0 && html`<li class="warn">${removing.pendingApprovals} call(s) still waiting for an approval</li>`}
        </ul>
        <p>The audit log keeps its entries.</p>
      <//>`
    }`;
}
