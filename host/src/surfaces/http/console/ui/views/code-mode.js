// An agent's code mode (issue 21, docs/code-mode.md): a switch that serves search_tools and
// run_code on its MCP endpoint, whether they are all the model is listed (exclusive), the scratch
// store and saved snippets switches, and the limits every run_code call runs under. A limit out of its range is refused whole, nothing
// stored (the API's schema answers AIRLOCK_API_INVALID_REQUEST naming the limit and its bound;
// the host itself AIRLOCK_CODE_SETTINGS_INVALID); the answer is the settings in force, which the
// form then shows.
import { useEffect, useState } from "preact/hooks";
import { api } from "../api.js";
import { LoadError, useResource } from "../common.js";
import { useFeedback } from "../feedback.js";
import { html } from "../html.js";

export const LIMITS = [
  ["cpuMs", "CPU time of the code (ms)", "Inner calls run in their own plugins' isolates and do not count."],
  ["wallMs", "Wall time of one run (ms)", "Inner calls and approval waits included."],
  ["memoryMb", "Memory of the code-mode isolate (MB)", ""],
  ["maxInnerCalls", "Tool calls per run", "Past it, the next inner call fails with its code."],
  ["maxInnerBytes", "Bytes inner results may hand back per run", ""],
  ["maxLogBytes", "Log kept per run (bytes)", "console output past it is cut."],
  ["maxCodeBytes", "Size of the code sent (bytes)", ""],
  ["maxResultBytes", "Size of what run_code answers (bytes)", ""],
  ["scratchTtlSeconds", "Scratch: seconds a value lives after it is set", "With the scratch store on."],
  ["scratchMaxKeys", "Scratch: keys per conversation", ""],
  ["scratchMaxValueBytes", "Scratch: bytes of one value", ""],
  ["scratchMaxBytes", "Scratch: bytes per conversation", ""],
  ["scratchMaxOps", "Scratch: scratch calls per run", ""],
];

export function CodeModeTab({ slug }) {
  const [data, error, reload] = useResource(`/api/agents/${slug}/code-mode`);
  const { run } = useFeedback();
  const [limits, setLimits] = useState({});
  // What the operator just asked for, shown until the host's answer replaces it (no flicker back).
  const [pending, setPending] = useState({});
  useEffect(() => {
    if (data) setLimits(Object.fromEntries(Object.entries(data.limits).map(([k, v]) => [k, String(v)])));
  }, [data]);
  const change = (label, body, done) =>
    run(label, async () => {
      setPending((p) => ({ ...p, ...body }));
      try {
        const now = await api("PUT", `/api/agents/${slug}/code-mode`, body);
        await reload();
        return done(now);
      } finally {
        setPending({});
      }
    });
  const toggle = (enabled) =>
    change(`Turn code mode ${enabled ? "on" : "off"} for ${slug}`, { enabled }, (now) =>
      now.enabled
        ? `Code mode is on for ${slug}: search_tools and run_code are served.`
        : `Code mode is off for ${slug}.`,
    );
  const exclusive = (value) =>
    change(`Set the listing of ${slug}`, { exclusive: value }, (now) =>
      now.exclusive
        ? `${slug}'s model is listed search_tools and run_code only; its tools stay callable from code.`
        : `${slug}'s model is listed its tools as well as search_tools and run_code.`,
    );
  const scratch = (value) =>
    change(`Set the scratch store of ${slug}`, { scratch: value }, (now) =>
      now.scratch
        ? `run_code of ${slug} has a scratch store per conversation.`
        : `run_code of ${slug} has no scratch store.`,
    );
  const snippets = (value) =>
    change(`Set saved snippets of ${slug}`, { snippets: value }, (now) =>
      now.snippets
        ? `run_code of ${slug} may save named snippets (airlock agents snippets reviews them).`
        : `run_code of ${slug} saves no snippets.`,
    );
  const saveLimits = (e) => {
    e.preventDefault();
    const body = Object.fromEntries(Object.entries(limits).map(([k, v]) => [k, Number(v)]));
    change(
      `Save the code-mode limits of ${slug}`,
      { limits: body },
      () => `Code-mode limits of ${slug} saved.`,
    );
  };
  if (error) return html`<${LoadError} error=${error} />`;
  if (data === null) return html`<p class="loading">Loading…</p>`;
  const enabled = pending.enabled ?? data.enabled;
  const only = pending.exclusive ?? data.exclusive;
  const hasScratch = pending.scratch ?? data.scratch;
  const hasSnippets = pending.snippets ?? data.snippets;
  return html`<h2>Code mode</h2>
    <p class="lead">With code mode on, the agent's model can write JavaScript that calls its tools (<code>run_code</code>) after finding them as TypeScript declarations (<code>search_tools</code>). Every inner call goes through the same enablement, secrets, approvals and audit as a direct call.</p>
    <div class="card">
      <label class="check switch"><input type="checkbox" checked=${enabled} onChange=${(e) => toggle(e.currentTarget.checked)} /> <span>Code mode on</span></label>
      <label class="check"><input type="checkbox" checked=${only} disabled=${!enabled} onChange=${(e) => exclusive(e.currentTarget.checked)} /> <span>List only search_tools and run_code to the model</span></label>
      <label class="check"><input type="checkbox" checked=${hasScratch} disabled=${!enabled} onChange=${(e) => scratch(e.currentTarget.checked)} /> <span>Scratch store: the code may keep small values per conversation</span></label>
      <label class="check"><input type="checkbox" checked=${hasSnippets} disabled=${!enabled} onChange=${(e) => snippets(e.currentTarget.checked)} /> <span>Saved snippets: the model may save code for review</span></label>
      <p class=${data.enabled ? "state ok" : "state muted"}>${data.enabled ? "On: search_tools and run_code are served to this agent." : "Off: this agent is served its tools only."}</p>
    </div>
    <form class="card limits" onSubmit=${saveLimits} aria-labelledby="limits-h">
      <h3 id="limits-h">Limits of each run_code call</h3>
      ${LIMITS.map(
        ([key, label, hint]) => html`<div key=${key}>
          <label for=${`cm-${key}`}>${label}</label>
          ${hint && html`<p class="hint" id=${`cm-${key}-hint`}>${hint}</p>`}
          <input id=${`cm-${key}`} type="number" min="0" step="1" inputmode="numeric" required value=${limits[key] ?? ""} aria-describedby=${hint ? `cm-${key}-hint` : undefined} onInput=${(e) => setLimits({ ...limits, [key]: e.currentTarget.value })} />
        </div>`,
      )}
      <button type="submit" class="primary">Save limits</button>
    </form>`;
}
