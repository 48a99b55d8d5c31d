// Live events from GET /api/events (Server-Sent Events; the session cookie authenticates it):
// each tool call's start, outcome, duration and error code, newest first, the last 200 kept.
import { useEffect, useState } from "preact/hooks";
import { html } from "../html.js";

const TYPES = ["tool.started", "tool.completed", "tool.failed", "permission.required", "tool.progress"];

/** The stable code of a failure: the host's, or the one a tool's own error result is reported with. */
function codeOf(type, d) {
  if (d.error?.code) return d.error.code;
  if (type === "tool.completed" && d.isError) return "AIRLOCK_TOOL_REPORTED_ERROR";
  return "";
}

function outcome(type, d) {
  if (type === "tool.started") return ["running", ""];
  if (type === "tool.completed") return d.isError ? ["tool error", "warn"] : ["ok", "ok"];
  if (type === "tool.failed") return [d.blocked ? "blocked" : "failed", "bad"];
  if (type === "permission.required") return ["waiting for approval", "warn"];
  return [d.notification?.message ?? "progress", ""];
}

export function EventsScreen() {
  const [events, setEvents] = useState([]);
  const [state, setState] = useState("connecting");
  const [paused, setPaused] = useState(false);
  useEffect(() => {
    if (paused) return;
    const source = new EventSource("/api/events");
    source.onopen = () => setState("connected");
    source.onerror = () => setState(source.readyState === EventSource.CLOSED ? "closed" : "reconnecting");
    for (const type of TYPES) {
      source.addEventListener(type, (m) => {
        let data;
        try {
          data = JSON.parse(m.data);
        } catch {
          return; // a frame that is not JSON is not an event of this stream
        }
        setEvents((list) =>
          [{ id: `${m.lastEventId}-${type}-${list.length}`, type, at: new Date(), data }, ...list].slice(
            0,
            200,
          ),
        );
      });
    }
    return () => source.close();
  }, [paused]);
  return html`<h1>Live events</h1>
    <p class="count row"><span class=${`dot ${state}`}></span> ${paused ? "paused" : state} · ${events.length} event(s)
      <button type="button" onClick=${() => setPaused(!paused)}>${paused ? "Resume" : "Pause"}</button>
      <button type="button" onClick=${() => setEvents([])}>Clear</button></p>
    ${events.length === 0 && html`<p class="empty">No events yet. Calls to any agent's tools show up here as they happen.</p>`}
    ${
      events.length > 0 &&
      html`<table class="list events">
      <caption class="sr">Events, newest first</caption>
      <thead><tr><th scope="col">Time</th><th scope="col">Event</th><th scope="col">Agent</th><th scope="col">Tool</th><th scope="col">Outcome</th><th scope="col">Duration</th><th scope="col">Error code</th></tr></thead>
      <tbody>${events.map((e) => {
        const [text, tone] = outcome(e.type, e.data);
        return html`<tr key=${e.id}>
          <td data-label="Time">${e.at.toLocaleTimeString()}</td>
          <td data-label="Event"><code>${e.type}</code></td>
          <td data-label="Agent">${e.data.agent ?? ""}</td>
          <td data-label="Tool"><code>${e.data.toolName ?? ""}</code></td>
          <td data-label="Outcome"><span class=${tone}>${text}</span>${e.type === "permission.required" ? html` <a href="#/approvals">decide</a>` : ""}</td>
          <td data-label="Duration">${typeof e.data.durationMs === "number" ? `${e.data.durationMs} ms` : ""}</td>
          <td data-label="Error code">${codeOf(e.type, e.data) && html`<code>${codeOf(e.type, e.data)}</code>`}</td>
        </tr>`;
      })}</tbody>
    </table>`
    }`;
}
