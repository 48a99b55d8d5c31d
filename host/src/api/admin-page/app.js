// The web admin page: a thin client of the admin API (the same routes docs/api.md lists), with
// the operator token kept in sessionStorage. Invariants: everything shown is written with
// textContent (never parsed as markup), secret values are sent, never displayed back in clear; the
// page reaches no origin but its own (the server's CSP says so too).
const $ = (id) => document.getElementById(id);
let token = sessionStorage.getItem("airlock-token") ?? "";

async function api(method, path, body) {
  const init = { method, headers: { authorization: `Bearer ${token}` } };
  if (body !== undefined) {
    init.headers["content-type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  const res = await fetch(path, init);
  const data = await res.json();
  if (!res.ok) throw new Error(`${data.error?.code ?? res.status}: ${data.error?.message ?? ""}`);
  return data;
}

function status(text, isError = false) {
  $("status").textContent = text;
  $("status").className = isError ? "error" : "";
}

function cell(row, content) {
  const td = row.insertCell();
  if (content instanceof Node) td.append(content);
  else td.textContent = String(content ?? "");
  return td;
}

function button(label, onClick) {
  const b = document.createElement("button");
  b.textContent = label;
  b.addEventListener("click", () => onClick().catch((e) => status(e.message, true)));
  return b;
}

function fill(tableId, items, render) {
  const body = $(tableId).tBodies[0];
  body.replaceChildren();
  for (const item of items) render(body.insertRow(), item);
}

const agent = () => $("agent").value;

async function loadAgents() {
  const { agents } = await api("GET", "/api/instances");
  const current = agent();
  $("agent").replaceChildren(...agents.map((a) => new Option(a.slug, a.slug)));
  if (agents.some((a) => a.slug === current)) $("agent").value = current;
  await loadAgent();
}

async function loadAgent() {
  if (!agent()) return;
  const slug = encodeURIComponent(agent());
  const [{ level }, { tools }, { secrets }] = await Promise.all([
    api("GET", `/api/instances/${slug}/knowledge`),
    api("GET", `/api/instances/${slug}/tools`),
    api("GET", `/api/instances/${slug}/secrets`),
  ]);
  $("level").value = level;
  fill("tools", tools, (row, t) => {
    cell(row, t.id).className = "mono";
    const box = document.createElement("input");
    box.type = "checkbox";
    box.checked = t.enabled;
    box.addEventListener("change", () =>
      api("PATCH", `/api/instances/${slug}/tools`, { enabled: { [t.id]: box.checked } })
        .then(loadAgent)
        .catch((e) => status(e.message, true)),
    );
    cell(row, box);
    cell(row, t.served ? "yes" : "no");
    cell(row, t.missingSecrets.join(", "));
  });
  fill("secrets", secrets, (row, s) => {
    cell(row, s.key).className = "mono";
    cell(row, s.set ? (s.value ?? "set") : "not set");
    cell(row, s.tools.join(", "));
    const input = document.createElement("input");
    input.type = s.sensitive ? "password" : "text";
    input.autocomplete = "off";
    const save = button("Save", async () => {
      await api("PUT", `/api/instances/${slug}/secrets`, { values: { [s.key]: input.value } });
      await loadAgent();
    });
    const remove = button("Delete", async () => {
      await api("DELETE", `/api/instances/${slug}/secrets/${encodeURIComponent(s.key)}`);
      await loadAgent();
    });
    const td = cell(row, input);
    td.append(" ", save, " ", remove);
  });
}

async function loadPlugins() {
  const { plugins } = await api("GET", "/api/plugins");
  fill("plugins", plugins, (row, p) => {
    cell(row, p.namespace).className = "mono";
    cell(row, p.active);
    cell(row, p.previous ?? "");
    cell(row, p.source);
    const actions = cell(row, "");
    if (p.previous)
      actions.append(
        button("Roll back", () => api("POST", `/api/plugins/${p.namespace}/rollback`).then(refresh)),
      );
    actions.append(
      " ",
      button("Uninstall", () => api("DELETE", `/api/plugins/${p.namespace}`).then(refresh)),
    );
  });
}

async function loadApprovals() {
  const { approvals } = await api("GET", "/api/approvals");
  fill("approvals", approvals, (row, a) => {
    cell(row, a.agent);
    cell(row, a.toolName).className = "mono";
    cell(row, JSON.stringify(a.input)).className = "mono";
    const decide = (approve) => () =>
      api("POST", `/api/approvals/${encodeURIComponent(a.id)}`, { approve }).then(loadApprovals);
    cell(row, button("Approve", decide(true))).append(" ", button("Deny", decide(false)));
  });
}

async function streamEvents() {
  const res = await fetch("/api/events", { headers: { authorization: `Bearer ${token}` } });
  if (!res.ok || !res.body) return;
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += value;
    let at = buffer.indexOf("\n\n");
    while (at >= 0) {
      const frame = buffer.slice(0, at);
      buffer = buffer.slice(at + 2);
      const type = /^event: (.*)$/m.exec(frame)?.[1];
      const data = /^data: (.*)$/m.exec(frame)?.[1];
      if (type && data) {
        const event = JSON.parse(data);
        const li = document.createElement("li");
        li.textContent = `${new Date().toLocaleTimeString()} ${type} ${event.agent} ${event.toolName}`;
        $("events").prepend(li);
        if (type === "permission.required" || type.startsWith("tool.completed"))
          loadApprovals().catch(() => undefined);
      }
      at = buffer.indexOf("\n\n");
    }
  }
}

async function refresh() {
  await Promise.all([loadAgents(), loadPlugins(), loadApprovals()]);
}

async function connect() {
  try {
    await refresh();
    sessionStorage.setItem("airlock-token", token);
    document.querySelector("main").hidden = false;
    status("connected");
    streamEvents().catch((e) => status(`event stream: ${e.message}`, true));
  } catch (e) {
    status(e.message, true);
  }
}

document.addEventListener("DOMContentLoaded", () => {
  $("login").addEventListener("submit", (e) => {
    e.preventDefault();
    token = $("token").value.trim();
    connect();
  });
  $("agent").addEventListener("change", () => loadAgent().catch((e) => status(e.message, true)));
  $("level").addEventListener("change", () =>
    api("PUT", `/api/instances/${encodeURIComponent(agent())}/knowledge`, { level: $("level").value }).catch(
      (e) => status(e.message, true),
    ),
  );
  $("new-agent").addEventListener("submit", (e) => {
    e.preventDefault();
    api("POST", "/api/instances", { slug: $("new-slug").value.trim() })
      .then(loadAgents)
      .catch((err) => status(err.message, true));
  });
  if (token) connect();
});
