// The agent's secrets, one field per key however many tools share it (with every tool using it),
// its label and description as the active tools declare it (the view's `spec`); select keys as
// dropdowns; sensitive values are never shown (the field starts empty and says whether a value is
// set). A value kept after its plugin was uninstalled (no active tool declares it: spec null) is
// shown as such, with Clear and no field (the host would refuse to set it). Then the knowledge
// level, one line on what each grants.
import { useState } from "preact/hooks";
import { api } from "../api.js";
import { LoadError, useResource } from "../common.js";
import { useFeedback } from "../feedback.js";
import { html } from "../html.js";

export const LEVELS = [
  ["none", "No knowledge access: ctx.knowledge is absent from this agent's tools."],
  ["read", "Tools may search and read this agent's documents (a new agent's level)."],
  ["write", "Tools may also create documents, and change the ones their own plugin wrote."],
  ["manage", "Tools may also change and delete any of this agent's documents."],
];

/** A value no active tool declares: kept when its plugin was uninstalled without purging. */
function OrphanSecret({ slug, secret, onChanged }) {
  const { run } = useFeedback();
  const clear = () =>
    run(`Clear ${secret.key}`, async () => {
      await api("DELETE", `/api/agents/${slug}/secrets/${secret.key}`);
      await onChanged();
      return `${secret.key} cleared for ${slug}.`;
    });
  return html`<div class="card secret orphan" role="group" aria-label=${`Secret ${secret.key}`}>
    <p class="orphan-key"><code>${secret.key}</code></p>
    <p class="meta">
      <span class="warn">Used by no installed tool</span>: kept when its plugin was uninstalled. It is
      used again if a plugin that declares it is installed; until then it cannot be changed, only cleared.
    </p>
    <div class="row">
      <button type="button" onClick=${clear} aria-label=${`Clear ${secret.key}`}>Clear</button>
    </div>
  </div>`;
}

function SecretField({ slug, secret, onChanged }) {
  const { run } = useFeedback();
  const spec = secret.spec;
  const readable = !secret.sensitive && spec?.type !== "select";
  const [value, setValue] = useState(
    readable ? (secret.value ?? "") : spec?.type === "select" ? (secret.value ?? "") : "",
  );
  const id = `secret-${secret.key}`;
  const label = spec?.label ?? secret.key;
  const save = (e) => {
    e.preventDefault();
    run(`Save ${secret.key}`, async () => {
      await api("PUT", `/api/agents/${slug}/secrets`, { values: { [secret.key]: value } });
      if (secret.sensitive) setValue("");
      await onChanged();
      return `${label} saved for ${slug}.`;
    });
  };
  const clear = () =>
    run(`Clear ${secret.key}`, async () => {
      await api("DELETE", `/api/agents/${slug}/secrets/${secret.key}`);
      setValue("");
      await onChanged();
      return `${label} cleared for ${slug}.`;
    });
  return html`<form class="card secret" onSubmit=${save}>
    <label for=${id}>${label} ${label !== secret.key && html`<code>${secret.key}</code>`}</label>
    ${spec?.description && html`<p class="hint" id=${`${id}-hint`}>${spec.description}</p>`}
    <p class="meta">
      ${secret.set ? html`<span class="ok">Set</span>` : html`<span class=${spec?.optional ? "muted" : "bad"}>Not set${spec?.optional ? " (optional)" : ""}</span>`}
      ${secret.sensitive ? " · sensitive: never shown again" : ""}${
        secret.tools.length === 0
          ? " · used by no tool yet"
          : html` · used by ${secret.tools.map((t, i) => html`${i > 0 ? ", " : ""}<code>${t}</code>`)}`
      }
    </p>
    <div class="row">
      ${
        spec?.type === "select"
          ? html`<select id=${id} value=${value} onChange=${(e) => setValue(e.currentTarget.value)} required>
              <option value="" disabled>Choose…</option>
              ${(spec.choices ?? []).map((c) => html`<option value=${c}>${c}</option>`)}
            </select>`
          : html`<input id=${id} type=${secret.sensitive ? "password" : "text"} autocomplete="off" required
              placeholder=${secret.sensitive && secret.set ? "a value is set; type to replace it" : ""}
              aria-describedby=${spec?.description ? `${id}-hint` : undefined}
              value=${value} onInput=${(e) => setValue(e.currentTarget.value)} />`
      }
      <button type="submit" class="primary">Save</button>
      ${secret.set && html`<button type="button" onClick=${clear} aria-label=${`Clear ${label}`}>Clear</button>`}
    </div>
  </form>`;
}

function Knowledge({ slug }) {
  const [data, error, reload] = useResource(`/api/agents/${slug}/knowledge`);
  const { run } = useFeedback();
  // The level just chosen, shown until the host's answer replaces it (a failure reverts it).
  const [chosen, setChosen] = useState(null);
  if (error) return html`<${LoadError} error=${error} />`;
  if (data === null) return null;
  const set = (level) =>
    run(`Set knowledge level ${level}`, async () => {
      setChosen(level);
      try {
        await api("PUT", `/api/agents/${slug}/knowledge`, { level });
        await reload();
      } finally {
        setChosen(null);
      }
      return `Knowledge level of ${slug} is now ${level}.`;
    });
  return html`<fieldset class="card levels">
    <legend>Knowledge level</legend>
    ${LEVELS.map(
      ([level, line]) => html`<label class="level">
        <input type="radio" name="level" value=${level} checked=${(chosen ?? data.level) === level} onChange=${() => set(level)} />
        <span><strong>${level}</strong> — ${line}</span>
      </label>`,
    )}
  </fieldset>`;
}

export function SecretsTab({ slug }) {
  const [secrets, error, reload] = useResource(`/api/agents/${slug}/secrets`);
  return html`<h2>Secrets</h2>
    ${error && html`<${LoadError} error=${error} />`}
    ${secrets && secrets.secrets.length === 0 && html`<p class="empty">No installed tool declares a secret.</p>`}
    ${secrets?.secrets.map((s) =>
      s.spec === null
        ? html`<${OrphanSecret} key=${`${s.key}-orphan`} slug=${slug} secret=${s} onChanged=${reload} />`
        : html`<${SecretField} key=${`${s.key}-${s.set}`} slug=${slug} secret=${s} onChanged=${reload} />`,
    )}
    <h2>Knowledge</h2>
    <${Knowledge} slug=${slug} />`;
}
