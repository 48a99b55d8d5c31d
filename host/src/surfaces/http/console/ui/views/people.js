// An agent's people-in-the-loop policy (docs/mcp.md, Approvals and Missing secrets): who
// approves its tools that are not read-only (an operator, the person at the client, or nobody),
// and which missing secrets the person at the client may enter on the host's page
// /secrets/<ticket> instead of the call failing. A thin form over GET/PATCH
// /api/agents/:slug/people, which validates and audits.
import { useState } from "preact/hooks";
import { api } from "../api.js";
import { LoadError, useResource } from "../common.js";
import { useFeedback } from "../feedback.js";
import { html } from "../html.js";

export const MODES = [
  [
    "operator",
    "An operator decides: on the Approvals screen, or on the call's approval page /approve/<id>, where a client that supports URL elicitation sends its person (an operator token is asked for there).",
  ],
  [
    "client",
    "The person at the MCP client decides, in a form their client shows; a client without forms falls back to an operator.",
  ],
  ["auto", "Nobody is asked: the call runs at once."],
];

export function PeopleTab({ slug }) {
  const [data, error, reload] = useResource(`/api/agents/${slug}/people`);
  const [secrets] = useResource(`/api/agents/${slug}/secrets`);
  const { run } = useFeedback();
  // What the operator just asked for, shown until the host's answer replaces it (no flicker back).
  const [pending, setPending] = useState({});
  const patch = (label, body, done) =>
    run(label, async () => {
      setPending(body);
      try {
        const r = await api("PATCH", `/api/agents/${slug}/people`, body);
        await reload();
        return done(r.policy);
      } finally {
        setPending({});
      }
    });
  const setMode = (approval) =>
    patch(`Set who approves for ${slug}`, { approval }, (p) => `Approvals of ${slug}: ${p.approval}.`);
  const setDestructive = (mode) =>
    patch(`Set who approves ${slug}'s destructive tools`, { destructive: mode }, (p) =>
      p.destructive === null
        ? `Destructive tools of ${slug}: as the other tools (${p.approval}).`
        : `Destructive tools of ${slug}: ${p.destructive}.`,
    );
  const setAsk = (key, allowed) => {
    const now = new Set(asked);
    if (allowed) now.add(key);
    else now.delete(key);
    patch(`${allowed ? "Allow" : "Stop"} asking for ${key}`, { askSecrets: [...now] }, () =>
      allowed
        ? `${key}: when it is missing, the person at the client may enter it on the host's page.`
        : `${key} is no longer asked for: a call missing it fails.`,
    );
  };
  if (error) return html`<${LoadError} error=${error} />`;
  if (data === null) return html`<p class="loading">Loading…</p>`;
  const overrides = Object.entries(data.policy.tools);
  const approval = pending.approval ?? data.policy.approval;
  const destructive = pending.destructive !== undefined ? pending.destructive : data.policy.destructive;
  const asked = pending.askSecrets ?? data.policy.askSecrets;
  return html`<h2>People in the loop</h2>
    <fieldset class="card levels">
      <legend>Who approves a call to a tool that is not read-only</legend>
      ${MODES.map(
        ([mode, line]) => html`<label class="level" key=${mode}>
          <input type="radio" name="approval" value=${mode} checked=${approval === mode} onChange=${() => setMode(mode)} />
          <span><strong>${mode}</strong> — ${line}</span>
        </label>`,
      )}
      ${
        overrides.length > 0 &&
        html`<p class="meta">Per-tool overrides: ${overrides.map(([tool, mode], i) => html`${i > 0 ? ", " : ""}<code>${tool}</code> ${mode}`)} (set with <code>airlock agents policy ${slug} --tool ns:tool=mode</code>).</p>`
      }
      <p class="meta">
        <label for="destructive-mode">Destructive tools (their grants can delete, or they say so):</label>
        <select id="destructive-mode" value=${destructive ?? ""} onChange=${(e) => setDestructive(e.currentTarget.value === "" ? null : e.currentTarget.value)}>
          <option value="">as the other tools</option>
          ${MODES.map(([mode]) => html`<option value=${mode} key=${mode}>${mode}</option>`)}
        </select>
      </p>
      <p class="hint">Waiting calls are on the <a href="#/approvals">Approvals</a> screen, each with a link to its approval page.</p>
    </fieldset>
    <fieldset class="card">
      <legend>Secrets the person at the client may enter when missing</legend>
      <p class="hint">A tool missing such a secret is still listed; its call sends the person to the host's page <code>${"/secrets/<ticket>"}</code> (valid 15 minutes) to enter the value, which goes to the host only — never through the client or the model. Other keys: <a href=${`#/agents/${slug}/secrets`}>fill them in yourself</a>.</p>
      ${secrets === null && html`<p class="loading">Loading secrets…</p>`}
      ${secrets && secrets.secrets.length === 0 && html`<p class="empty">No enabled tool declares a secret.</p>`}
      ${secrets?.secrets.map(
        (s) => html`<label class="check" key=${s.key}>
          <input type="checkbox" checked=${asked.includes(s.key)} onChange=${(e) => setAsk(s.key, e.currentTarget.checked)} />
          <span><code>${s.key}</code> ${s.set ? html`<span class="ok">set</span>` : html`<span class="bad">not set</span>`} <span class="meta">used by ${s.tools.join(", ")}</span></span>
        </label>`,
      )}
    </fieldset>`;
}
