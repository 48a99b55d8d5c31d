// The operator console: sign in, then a shell with a navigation bar, the status line of the last
// action and one screen chosen by the URL's hash (#/agents, #/agents/<slug>/<tab>, #/plugins, #/remote,
// #/audit, #/approvals, #/events), so the browser's back button and links work.
import { render } from "preact";
import { useEffect, useState } from "preact/hooks";
import { api, setSession } from "./api.js";
import { FeedbackProvider, StatusLine, useFeedbackState } from "./feedback.js";
import { html } from "./html.js";
import { AgentScreen } from "./views/agent.js";
import { AgentsScreen } from "./views/agents.js";
import { ApprovalsScreen } from "./views/approvals.js";
import { AuditScreen } from "./views/audit.js";
import { EventsScreen } from "./views/events.js";
import { PluginsScreen } from "./views/plugins.js";
import { RemoteScreen } from "./views/remote.js";

function useHashRoute() {
  const read = () => (location.hash.replace(/^#\/?/, "") || "agents").split("/").map(decodeURIComponent);
  const [route, setRoute] = useState(read);
  useEffect(() => {
    const onChange = () => setRoute(read());
    addEventListener("hashchange", onChange);
    return () => removeEventListener("hashchange", onChange);
  }, []);
  return route;
}

/**
 * Where to go after signing in: the authorization server's consent page when it sent the browser
 * here (`/admin?next=/oauth/authorize?…`); only that same-origin path is followed.
 */
function nextPage() {
  const next = new URLSearchParams(location.search).get("next");
  return next?.startsWith("/oauth/authorize?") ? next : null;
}

function SignIn({ onSignedIn, reason, notice }) {
  const [token, setToken] = useState("");
  const [error, setError] = useState(reason ?? null);
  const [busy, setBusy] = useState(false);
  const submit = async (e) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const session = await api("POST", "/admin/session", { token: token.trim() });
      setToken("");
      onSignedIn(session);
    } catch (err) {
      setError(`${err.message} (${err.code})`);
    } finally {
      setBusy(false);
    }
  };
  return html`<main class="signin">
    <h1>Airlock console</h1>
    ${notice && html`<p class="notice" role="status">${notice}</p>`}
    ${nextPage() !== null && html`<p class="hint">An MCP client asks to connect to an agent: sign in to review its request.</p>`}
    <form onSubmit=${submit} class="card">
      <label for="token">Operator token</label>
      <p class="hint" id="token-hint">
        The <code>alk_op_…</code> token printed by <code>airlock start</code> or issued
        with <code>airlock tokens create --role operator</code>. It is checked once; the console
        then keeps a session of its own for 8 hours.
      </p>
      <input id="token" type="password" autocomplete="off" required aria-describedby="token-hint"
        value=${token} onInput=${(e) => setToken(e.currentTarget.value)} />
      <button class="primary" type="submit" disabled=${busy}>Sign in</button>
      ${error !== null && html`<p class="error" role="alert">${error}</p>`}
    </form>
  </main>`;
}

const NAV = [
  ["agents", "Agents"],
  ["plugins", "Plugins"],
  ["remote", "Remote MCP"],
  ["audit", "Audit"],
  ["approvals", "Approvals"],
  ["events", "Live events"],
];

/** How many calls wait for an approval, polled (null until the first answer). */
function usePendingApprovals() {
  const [count, setCount] = useState(null);
  useEffect(() => {
    let live = true;
    const load = () =>
      api("GET", "/api/approvals").then(
        (r) => live && setCount(r.approvals.length),
        () => undefined, // the Approvals screen says why it cannot load; the badge keeps its last count
      );
    load();
    const timer = setInterval(load, 3000);
    return () => {
      live = false;
      clearInterval(timer);
    };
  }, []);
  return count;
}

function NavLabel({ id, label, pending }) {
  if (id !== "approvals" || !pending) return label;
  return html`${label} <span class="pending" aria-label=${`${pending} pending`}>${pending}</span>`;
}

function Shell({ session, onSignOut }) {
  const route = useHashRoute();
  const pending = usePendingApprovals();
  const feedback = useFeedbackState();
  const [section, ...rest] = route;
  // A new screen starts with a clean status line: an old error does not apply there.
  const where = route.join("/");
  useEffect(() => feedback.clear(where), [where, feedback.clear]);
  let screen;
  if (section === "agents" && rest[0] !== undefined)
    screen = html`<${AgentScreen} slug=${rest[0]} tab=${rest[1] ?? "tools"} />`;
  else if (section === "plugins") screen = html`<${PluginsScreen} />`;
  else if (section === "remote") screen = html`<${RemoteScreen} />`;
  else if (section === "audit") screen = html`<${AuditScreen} />`;
  else if (section === "approvals") screen = html`<${ApprovalsScreen} />`;
  else if (section === "events") screen = html`<${EventsScreen} />`;
  else screen = html`<${AgentsScreen} />`;
  return html`<${FeedbackProvider} value=${feedback}>
    <a class="skip" href="#main" onClick=${(e) => {
      e.preventDefault();
      document.getElementById("main")?.focus();
    }}>Skip to content</a>
    <header class="top">
      <span class="brand">Airlock</span>
      <nav aria-label="Sections">
        <ul class="nav-list">
          ${NAV.map(
            ([id, label]) =>
              html`<li><a href="#/${id}" aria-current=${section === id ? "page" : undefined}><${NavLabel} id=${id} label=${label} pending=${pending} /></a></li>`,
          )}
        </ul>
      </nav>
      <button type="button" class="signout" onClick=${onSignOut} title=${`session ${session.tokenId}`}>Sign out</button>
    </header>
    <${StatusLine} state=${feedback.state} onDismiss=${feedback.clear} />
    <main id="main" tabindex="-1">${screen}</main>
  <//>`;
}

function App() {
  const [session, setSessionState] = useState(undefined);
  // Why the sign-in form shows: an error (a session refused) in red, or a notice (signed out).
  const [reason, setReason] = useState(null);
  const [notice, setNotice] = useState(null);
  const signedIn = (s) => {
    const next = nextPage();
    if (next !== null) {
      location.assign(next);
      return;
    }
    setSession(s.csrf, (error) => {
      setReason(`${error.message} (${error.code})`);
      setSessionState(null);
    });
    setReason(null);
    setNotice(null);
    setSessionState(s);
  };
  useEffect(() => {
    api("GET", "/admin/session").then(signedIn, () => setSessionState(null));
  }, []);
  const signOut = async () => {
    try {
      await api("DELETE", "/admin/session");
      setNotice("Signed out.");
    } catch (error) {
      setReason(`${error.message} (${error.code})`);
    }
    setSession(null);
    setSessionState(null);
  };
  if (session === undefined) return html`<p class="loading">Loading…</p>`;
  if (session === null) return html`<${SignIn} onSignedIn=${signedIn} reason=${reason} notice=${notice} />`;
  return html`<${Shell} session=${session} onSignOut=${signOut} />`;
}

render(html`<${App} />`, document.getElementById("app"));
