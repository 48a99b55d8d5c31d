// Audit: filter by agent, plugin, tool, kind, outcome and time; denied capability calls stand
// out; a chart of calls and failures over time and the slowest tools above the entries.
import { useEffect, useState } from "preact/hooks";
import { api } from "../api.js";
import { LoadError, useResource, when } from "../common.js";
import { useFeedback } from "../feedback.js";
import { html } from "../html.js";
import { Ident } from "../ident.js";
import { approvalWaitOf, CallsChart, duration, executionOf, SlowestChart, WaitsChart } from "./chart.js";

const OUTCOMES = [
  ["", "Any outcome"],
  ["ok", "Succeeded"],
  ["failed", "Failed"],
  ["denied", "Denied (refused)"],
];

function outcomeOf(e) {
  if (e.allowed === false) return "denied";
  if (e.success === false) return "failed";
  return "ok";
}

export function toolOf(e) {
  if (e.tool !== null && e.plugin !== null) return `${e.plugin}:${e.tool}`;
  return e.tool ?? e.plugin ?? "";
}

function queryOf(f) {
  const p = new URLSearchParams({ limit: "500" });
  for (const k of ["agent", "plugin", "kind"]) if (f[k]) p.set(k, f[k]);
  // Entries name the tool without its plugin: `ns:tool` (or `ns__tool`) filters on both.
  const tool = f.tool.trim();
  const split = /^([a-z][a-z0-9-]*)(?::|__)(.+)$/.exec(tool);
  if (split !== null) {
    p.set("plugin", split[1]);
    p.set("tool", split[2]);
  } else if (tool !== "") p.set("tool", tool);
  if (f.since) p.set("since", new Date(f.since).toISOString());
  if (f.until) p.set("until", new Date(f.until).toISOString());
  return p.toString();
}

/** A call's execution time, and apart from it any time it waited for an approval. */
function durationCell(e) {
  if (typeof e.durationMs !== "number") return "";
  const wait = approvalWaitOf(e);
  if (wait === 0) return duration(e.durationMs);
  return html`${duration(executionOf(e))}<span class="meta wait"> + ${duration(wait)} waiting for approval</span>`;
}

export function AuditScreen() {
  const [agents] = useResource("/api/agents");
  const [plugins] = useResource("/api/plugins");
  const { run } = useFeedback();
  const [form, setForm] = useState({
    agent: "",
    plugin: "",
    tool: "",
    kind: "",
    outcome: "",
    since: "",
    until: "",
  });
  const [applied, setApplied] = useState(form);
  const [page, setPage] = useState(null);
  const [error, setError] = useState(null);
  useEffect(() => {
    api("GET", `/api/audit?${queryOf(applied)}`).then((p) => {
      setPage(p);
      setError(null);
    }, setError);
  }, [applied]);
  const field = (k) => (e) => setForm({ ...form, [k]: e.currentTarget.value });
  const apply = (e) => {
    e.preventDefault();
    run("Filter the audit", async () => {
      setApplied({ ...form });
      return "Audit filtered.";
    });
  };
  const entries = (page?.entries ?? []).filter(
    (e) => applied.outcome === "" || outcomeOf(e) === applied.outcome,
  );
  const denied = entries.filter((e) => e.kind === "capability" && e.allowed === false).length;
  return html`<h1>Audit</h1>
    <form class="filters" onSubmit=${apply} aria-label="Audit filters">
      <div><label for="f-agent">Agent</label><select id="f-agent" value=${form.agent} onChange=${field("agent")}>
        <option value="">All agents</option>${agents?.agents.map((a) => html`<option value=${a.slug}>${a.slug}</option>`)}
      </select></div>
      <div><label for="f-plugin">Plugin</label><select id="f-plugin" value=${form.plugin} onChange=${field("plugin")}>
        <option value="">All plugins</option>${plugins?.plugins.map((p) => html`<option value=${p.namespace}>${p.namespace}</option>`)}
      </select></div>
      <div><label for="f-tool">Tool</label><input id="f-tool" placeholder="plugin:tool or tool" value=${form.tool} onInput=${field("tool")} /></div>
      <div><label for="f-kind">Kind</label><select id="f-kind" value=${form.kind} onChange=${field("kind")}>
        <option value="">All kinds</option><option value="tool">Tool calls</option><option value="capability">Capability calls</option><option value="plugin">Plugin log</option><option value="admin">Operator actions</option>
      </select></div>
      <div><label for="f-outcome">Outcome</label><select id="f-outcome" value=${form.outcome} onChange=${field("outcome")}>
        ${OUTCOMES.map(([v, l]) => html`<option value=${v}>${l}</option>`)}
      </select></div>
      <div><label for="f-since">From</label><input id="f-since" type="datetime-local" value=${form.since} onInput=${field("since")} /></div>
      <div><label for="f-until">To</label><input id="f-until" type="datetime-local" value=${form.until} onInput=${field("until")} /></div>
      <div class="submit"><button type="submit" class="primary">Apply filters</button></div>
    </form>
    ${error && html`<${LoadError} error=${error} />`}
    ${
      page &&
      html`<section aria-label="Charts" class="charts">
        <${CallsChart} entries=${entries} />
        <${SlowestChart} entries=${entries} />
        <${WaitsChart} entries=${entries} />
      </section>
      <p class="count">${entries.length} entries${page.nextBefore !== null ? " (the newest 500)" : ""}${denied > 0 ? html` · <span class="bad">${denied} denied capability call(s)</span>` : ""}</p>
      <div class="table-scroll">
      <table class="list audit">
        <caption class="sr">Audit entries, newest first</caption>
        <thead><tr><th scope="col">When</th><th scope="col">Kind</th><th scope="col">What</th><th scope="col">Agent</th><th scope="col">Tool / plugin</th><th scope="col">Outcome</th><th scope="col">Duration</th></tr></thead>
        <tbody>${entries.map(
          (
            e,
          ) => html`<tr key=${e.id} class=${e.kind === "capability" && e.allowed === false ? "denied" : outcomeOf(e) === "failed" ? "failed" : ""}>
            <td data-label="When">${when(e.at)}</td>
            <td data-label="Kind">${e.kind}</td>
            <td data-label="What"><${Ident} whole text=${e.action} /></td>
            <td data-label="Agent">${e.agent === null ? "" : html`<${Ident} whole text=${e.agent} />`}</td>
            <td data-label="Tool">${toolOf(e) === "" ? "" : html`<${Ident} text=${toolOf(e)} />`}</td>
            <td data-label="Outcome">${outcomeOf(e) === "denied" ? html`<strong>denied</strong>` : outcomeOf(e)}${e.error ? html` <${Ident} text=${e.error} />` : ""}</td>
            <td data-label="Duration">${durationCell(e)}</td>
          </tr>`,
        )}</tbody>
      </table>
      </div>`
    }`;
}
