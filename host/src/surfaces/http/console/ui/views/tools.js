// The catalogue as one agent sees it: search and filter by plugin, category and state; each tool
// with its title, description, annotations and parameters; enable or disable it, or every tool
// the filters show at once; and what stops it being served ("missing secret `api_key`").
// Each tool shows its grants: the ones it declares (its annotations derived from them, and any
// hint its author claimed that they contradict), or "not declared" (the legacy mode).
import { useMemo, useState } from "preact/hooks";
import { api } from "../api.js";
import { LoadError, useResource } from "../common.js";
import { useFeedback } from "../feedback.js";
import { html } from "../html.js";

const HINTS = [
  ["readOnlyHint", true, "read-only", "ok"],
  ["readOnlyHint", false, "changes things (asks for approval)", "warn"],
  ["destructiveHint", true, "destructive", "bad"],
  ["idempotentHint", true, "idempotent", ""],
  ["openWorldHint", true, "reaches outside services", ""],
];

function Badges({ annotations }) {
  const shown = HINTS.filter(([key, value]) => annotations?.[key] === value);
  if (shown.length === 0) return null;
  return html`<ul class="badges" aria-label="Annotations">${shown.map(
    ([, , label, tone]) => html`<li class="badge ${tone}">${label}</li>`,
  )}</ul>`;
}

const CLAIMS = [
  ["readOnlyHint", "read-only"],
  ["destructiveHint", "destructive"],
  ["idempotentHint", "idempotent"],
  ["openWorldHint", "reaching outside services"],
];

/** What the tool may reach: its declared grants, or "not declared" (the plugin's grants); where its author claimed otherwise. */
function Grants({ tool }) {
  const g = tool.grants;
  if (g === undefined)
    return html`<p class="meta grants">Grants: not declared (the plugin's; annotations as its author wrote them)</p>`;
  const parts = [];
  if (g.knowledge !== null) parts.push(`knowledge ${g.knowledge}`);
  if (g.state !== null) parts.push(`state ${g.state}`);
  if (g.artifacts.length > 0) parts.push(`artifacts ${g.artifacts.join("/")}`);
  for (const f of g.fetch) parts.push(`${f.methods.join("/")} ${f.host}`);
  if (g.models) parts.push("models");
  if (g.oauth.length > 0) parts.push(`oauth ${g.oauth.join("/")}`);
  const claimed = tool.claimedAnnotations ?? {};
  const overridden = CLAIMS.filter(
    ([key]) => claimed[key] !== undefined && claimed[key] !== tool.annotations?.[key],
  ).map(([key, label]) => `${claimed[key] ? "" : "not "}${label}`);
  return html`<p class="meta grants">Grants: ${parts.length === 0 ? "none" : parts.join(", ")}</p>
    ${
      overridden.length > 0 &&
      html`<p class="meta grants-override">Its author claimed ${overridden.join(", ")}; its grants say otherwise.</p>`
    }`;
}

/** A JSON Schema's type in words: `string`, `boolean | null`, `list of number`, `one of "a", "b"`. */
export function typeOf(schema) {
  if (schema === undefined || schema === null || schema === true) return "any";
  if (Object.hasOwn(schema, "const")) return JSON.stringify(schema.const);
  if (Array.isArray(schema.enum)) return `one of ${schema.enum.map((v) => JSON.stringify(v)).join(", ")}`;
  // A nullable or union type (`z.boolean().nullable()` is anyOf [boolean, null]): its branches.
  const union = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(union) && union.length > 0) {
    return [...new Set(union.map(typeOf))].join(" | ") + (schema.nullable === true ? " | null" : "");
  }
  let type;
  if (schema.type === "array") type = `list of ${typeOf(schema.items)}`;
  else if (Array.isArray(schema.type)) type = schema.type.join(" | ");
  else type = schema.type ?? "any";
  // OpenAPI's `nullable: true`
  return schema.nullable === true && type !== "any" ? `${type} | null` : type;
}

function Parameters({ schema }) {
  const props = Object.entries(schema?.properties ?? {});
  if (props.length === 0) return html`<p class="muted">No parameters.</p>`;
  const required = new Set(schema.required ?? []);
  return html`<table class="params">
    <thead><tr><th scope="col">Parameter</th><th scope="col">Type</th><th scope="col">Description</th></tr></thead>
    <tbody>${props.map(
      ([name, p]) => html`<tr key=${name}>
        <td><code>${name}</code>${required.has(name) ? html` <span class="req">required</span>` : ""}</td>
        <td>${typeOf(p)}</td>
        <td>${p.description ?? ""}</td>
      </tr>`,
    )}</tbody>
  </table>`;
}

function Why({ tool, slug }) {
  if (tool.served) return html`<p class="state ok">Served to this agent.</p>`;
  if (!tool.enabled) return html`<p class="state muted">Disabled: not served.</p>`;
  if (tool.missingSecrets.length > 0)
    return html`<p class="state bad">Not served: missing secret ${tool.missingSecrets.map(
      (k, i) => html`${i > 0 ? ", " : ""}<code>${k}</code>`,
    )} — <a href="#/agents/${slug}/secrets">fill it in</a>, or <a href="#/agents/${slug}/people">let the person at the client enter it</a>.</p>`;
  return html`<p class="state bad">Enabled but not served.</p>`;
}

export function ToolsTab({ slug }) {
  const [data, error, reload] = useResource(`/api/agents/${slug}/tools`);
  const { run } = useFeedback();
  const [query, setQuery] = useState("");
  const [plugin, setPlugin] = useState("");
  const [category, setCategory] = useState("");
  const [stateFilter, setStateFilter] = useState("");
  // What the operator just asked for, shown until the host's answer replaces it (no flicker back).
  const [pending, setPending] = useState({});
  const tools = data?.tools ?? [];
  const plugins = useMemo(() => [...new Set(tools.map((t) => t.namespace))].sort(), [tools]);
  const categories = useMemo(() => [...new Set(tools.map((t) => t.category))].sort(), [tools]);
  const q = query.trim().toLowerCase();
  const shown = tools.filter(
    (t) =>
      (plugin === "" || t.namespace === plugin) &&
      (category === "" || t.category === category) &&
      (stateFilter === "" ||
        (stateFilter === "served" && t.served) ||
        (stateFilter === "blocked" && t.enabled && !t.served) ||
        (stateFilter === "disabled" && !t.enabled)) &&
      (q === "" || `${t.id} ${t.annotations?.title ?? ""} ${t.description}`.toLowerCase().includes(q)),
  );
  const toggle = (tool, enabled) =>
    run(`${enabled ? "Enable" : "Disable"} ${tool.id}`, async () => {
      setPending((p) => ({ ...p, [tool.id]: enabled }));
      let res;
      try {
        res = await api("PATCH", `/api/agents/${slug}/tools`, { enabled: { [tool.id]: enabled } });
        await reload();
      } finally {
        setPending(({ [tool.id]: _, ...rest }) => rest);
      }
      const now = res.tools.find((t) => t.id === tool.id);
      if (!enabled) return `${tool.id} disabled for ${slug}.`;
      return now?.served
        ? `${tool.id} enabled and served to ${slug}.`
        : {
            warn: `${tool.id} enabled, but not served yet: missing secret ${now?.missingSecrets.join(", ")}.`,
          };
    });

  // Every tool the filters show at once (all of them when nothing is filtered): one PATCH.
  const setAll = (list, enabled) =>
    run(`${enabled ? "Enable" : "Disable"} ${list.length} tools`, async () => {
      const ids = list.map((t) => t.id);
      setPending((p) => ({ ...p, ...Object.fromEntries(ids.map((id) => [id, enabled])) }));
      let res;
      try {
        res = await api("PATCH", `/api/agents/${slug}/tools`, {
          enabled: Object.fromEntries(ids.map((id) => [id, enabled])),
        });
        await reload();
      } finally {
        setPending((p) => Object.fromEntries(Object.entries(p).filter(([id]) => !ids.includes(id))));
      }
      if (!enabled) return `${ids.length} tool(s) disabled for ${slug}.`;
      const blocked = res.tools.filter((t) => ids.includes(t.id) && !t.served);
      const line = `${ids.length} tool(s) enabled for ${slug}`;
      return blocked.length === 0
        ? `${line}, all served.`
        : { warn: `${line}; not served yet for a missing secret: ${blocked.map((t) => t.id).join(", ")}.` };
    });

  if (error) return html`<${LoadError} error=${error} />`;
  if (data === null) return html`<p class="loading">Loading tools…</p>`;
  if (tools.length === 0)
    return html`<p class="empty">No plugin is installed, so there are no tools. <a href="#/plugins">Install a plugin</a>.</p>`;
  return html`<form class="filters" role="search" onSubmit=${(e) => e.preventDefault()}>
      <div><label for="tool-q">Search</label><input id="tool-q" type="search" value=${query} onInput=${(e) => setQuery(e.currentTarget.value)} placeholder="name, title or description" /></div>
      <div><label for="tool-plugin">Plugin</label><select id="tool-plugin" value=${plugin} onChange=${(e) => setPlugin(e.currentTarget.value)}>
        <option value="">All plugins</option>${plugins.map((p) => html`<option value=${p}>${p}</option>`)}
      </select></div>
      <div><label for="tool-category">Category</label><select id="tool-category" value=${category} onChange=${(e) => setCategory(e.currentTarget.value)}>
        <option value="">All categories</option>${categories.map((c) => html`<option value=${c}>${c}</option>`)}
      </select></div>
      <div><label for="tool-state">State</label><select id="tool-state" value=${stateFilter} onChange=${(e) => setStateFilter(e.currentTarget.value)}>
        <option value="">Any</option><option value="served">Served</option><option value="blocked">Enabled, not served</option><option value="disabled">Disabled</option>
      </select></div>
    </form>
    <div class="bulk">
      <p class="count" aria-live="polite">${shown.length} of ${tools.length} tools</p>
      <button type="button" disabled=${shown.every((t) => t.enabled)} onClick=${() =>
        setAll(
          shown.filter((t) => !t.enabled),
          true,
        )}>
        ${shown.length === tools.length ? "Enable all" : `Enable all ${shown.length} shown`}
      </button>
      <button type="button" disabled=${shown.every((t) => !t.enabled)} onClick=${() =>
        setAll(
          shown.filter((t) => t.enabled),
          false,
        )}>
        ${shown.length === tools.length ? "Disable all" : `Disable all ${shown.length} shown`}
      </button>
    </div>
    <ul class="tools">
      ${shown.map(
        (t) => html`<li key=${t.id} class="tool card ${t.served ? "served" : t.enabled ? "blocked" : ""}">
          <div class="tool-head">
            <label class="check switch">
              <input type="checkbox" checked=${pending[t.id] ?? t.enabled} onChange=${(e) => toggle(t, e.currentTarget.checked)} aria-describedby=${`why-${t.namespace}-${t.name}`} />
              <span>Enabled</span>
            </label>
            <h3>${t.annotations?.title ?? t.name} <code class="id">${t.id}</code></h3>
          </div>
          <p class="meta">${t.namespace} ${t.version} · ${t.category}</p>
          <p>${t.description}</p>
          <${Badges} annotations=${t.annotations} />
          <${Grants} tool=${t} />
          <div id=${`why-${t.namespace}-${t.name}`}><${Why} tool=${t} slug=${slug} /></div>
          <details><summary>Parameters</summary><${Parameters} schema=${t.inputSchema} /></details>
        </li>`,
      )}
    </ul>`;
}
