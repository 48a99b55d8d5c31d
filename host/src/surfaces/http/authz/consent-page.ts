// The consent page of the authorization server, in the console's look (its stylesheet,
// /admin/app.css): which client asks, where the browser goes back to, which agent (from the
// `resource`) and which tools that agent has enabled; Approve or Deny in one form.
// Invariants: no script at all and every value escaped; the CSP allows form submission only to
// this origin and the one redirect URI's origin (the 303 after the decision goes there); the page
// is never framed (frame-ancestors 'none', X-Frame-Options DENY) nor cached, and sends no Referer to
// another origin (the client's redirect URI never sees the authorization request).
import type { AgentToolView } from "../../../contracts/host.ts";
import { escapeHtml, layout as peopleLayout } from "../people/html.ts";

export function pageHeaders(formTarget?: string): Record<string, string> {
  const formAction = formTarget === undefined ? "'self'" : `'self' ${formTarget}`;
  return {
    "content-type": "text/html; charset=utf-8",
    "cache-control": "no-store",
    // same-origin, not no-referrer: under no-referrer a browser sends `Origin: null` with the form,
    // and the decision is refused (its Origin is checked); other origins still get no Referer.
    "referrer-policy": "same-origin",
    "x-frame-options": "DENY",
    "content-security-policy": `default-src 'none'; style-src 'self'; img-src 'self' data:; base-uri 'none'; form-action ${formAction}; frame-ancestors 'none'`,
  };
}

const layout = (title: string, body: string): string => peopleLayout(title, body, "consent");

/** A page that only says something went wrong (no redirect to an untrusted URI). */
export function errorPage(title: string, message: string, code: string): string {
  return layout(
    title,
    `<h1>${escapeHtml(title)}</h1><div class="card"><p class="error" role="alert">${escapeHtml(message)} (<code>${escapeHtml(code)}</code>)</p>
<p class="hint">Start the connection again from the MCP client.</p></div>`,
  );
}

export interface ConsentView {
  clientName: string;
  clientId: string;
  redirectUri: string;
  agent: string;
  resource: string;
  tools: AgentToolView[];
  accessTtlSeconds: number;
  sealedRequest: string;
  csrf: string;
}

function toolList(tools: AgentToolView[]): string {
  const enabled = tools.filter((t) => t.enabled);
  if (enabled.length === 0)
    return `<p class="warn">This agent has no tools enabled: the client will see none.</p>`;
  const items = enabled.map((t) => {
    const title = t.annotations.title ?? t.name;
    const served = t.served
      ? ""
      : ` <span class="badge warn">not served: missing ${escapeHtml(t.missingSecrets.join(", "))}</span>`;
    return `<li><code>${escapeHtml(t.id)}</code> — ${escapeHtml(title)}${served}<br><span class="hint">${escapeHtml(t.description)}</span></li>`;
  });
  return `<ul class="consent-tools">${items.join("")}</ul>`;
}

export function consentPage(v: ConsentView): string {
  const name = v.clientName === "" ? "An unnamed client" : v.clientName;
  const hours =
    v.accessTtlSeconds % 3600 === 0 ? `${v.accessTtlSeconds / 3600} h` : `${v.accessTtlSeconds} s`;
  const enabledCount = v.tools.filter((t) => t.enabled).length;
  return layout(
    `Connect ${name} to ${v.agent}?`,
    `<h1>Connect ${escapeHtml(name)} to agent ${escapeHtml(v.agent)}?</h1>
<div class="card">
<p>An MCP client asks to call this agent's tools on your behalf.</p>
<dl class="consent-facts">
<dt>Client</dt><dd>${escapeHtml(name)} <span class="id">${escapeHtml(v.clientId)}</span></dd>
<dt>Sends you back to</dt><dd><code>${escapeHtml(v.redirectUri)}</code></dd>
<dt>Agent</dt><dd><strong>${escapeHtml(v.agent)}</strong> at <code>${escapeHtml(v.resource)}</code></dd>
</dl>
<h2>Tools it can call (${enabledCount} enabled)</h2>
${toolList(v.tools)}
<p class="hint">Its access token works only at this agent's MCP URL, lasts ${escapeHtml(hours)} and is refreshed; revoke it any time under the agent's <em>OAuth grants</em> in the console.</p>
<form method="post" action="/oauth/authorize" class="actions">
<input type="hidden" name="request" value="${escapeHtml(v.sealedRequest)}">
<input type="hidden" name="csrf" value="${escapeHtml(v.csrf)}">
<button type="submit" name="decision" value="approve" class="primary">Approve</button>
<button type="submit" name="decision" value="deny">Deny</button>
</form>
</div>`,
  );
}
