// Pending approvals of every replica: the tool, the agent, the input; approve, or deny with a
// reason (the reason reaches the model as the tool's result); each links to its approval page
// /approve/<id> and to its agent's approval policy. Refreshes while open.
import { useEffect, useState } from "preact/hooks";
import { api } from "../api.js";
import { LoadError, useResource, when } from "../common.js";
import { useFeedback } from "../feedback.js";
import { html } from "../html.js";

function Approval({ approval, onDecided }) {
  const { run } = useFeedback();
  const [reason, setReason] = useState("");
  const decide = (approve) =>
    run(`${approve ? "Approve" : "Deny"} ${approval.toolName}`, async () => {
      await api(
        "POST",
        `/api/approvals/${encodeURIComponent(approval.id)}`,
        approve ? { approve } : { approve, reason: reason.trim() || "denied by the operator" },
      );
      await onDecided();
      return `${approval.toolName} for ${approval.agent} ${approve ? "approved" : "denied"}.`;
    });
  const id = `reason-${approval.id}`;
  return html`<li class="card approval">
    <h3><code>${approval.toolName}</code> for <a href="#/agents/${approval.agent}/tools">${approval.agent}</a></h3>
    <p class="meta">asked ${when(approval.requestedAt)} · approval ${approval.id} · <a href=${`/approve/${encodeURIComponent(approval.id)}`} target="_blank" rel="noopener">its approval page</a> (the page a client's person is sent to) · <a href=${`#/agents/${approval.agent}/people`}>who approves for ${approval.agent}</a></p>
    <details open><summary>Input</summary><pre>${JSON.stringify(approval.input, null, 2)}</pre></details>
    <label for=${id}>Reason (sent to the model when you deny)</label>
    <input id=${id} value=${reason} onInput=${(e) => setReason(e.currentTarget.value)} />
    <div class="actions">
      <button type="button" class="primary" onClick=${() => decide(true)}>Approve</button>
      <button type="button" class="danger" onClick=${() => decide(false)}>Deny</button>
    </div>
  </li>`;
}

export function ApprovalsScreen() {
  const [data, error, reload] = useResource("/api/approvals");
  useEffect(() => {
    const timer = setInterval(reload, 3000);
    return () => clearInterval(timer);
  }, [reload]);
  return html`<h1>Approvals</h1>
    <p class="lead">A call to a tool that is not read-only waits here until you decide.</p>
    ${error && html`<${LoadError} error=${error} />`}
    ${data && data.approvals.length === 0 && html`<p class="empty">Nothing is waiting for an approval.</p>`}
    <ul class="approvals">${data?.approvals.map((a) => html`<${Approval} key=${a.id} approval=${a} onDecided=${reload} />`)}</ul>`;
}
