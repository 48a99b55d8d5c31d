// The secret page, /secrets/:ticket: the missing secrets of a call, entered by the person the MCP
// client sent there; the values go to the host over this page only and are stored encrypted like
// any secret.
// Invariants: a page opens only under a ticket this host sealed (tickets.ts); it asks for, and
// sets, only keys the operator allows for the agent and that are still missing (a secret that is
// set is never overwritten, so a replayed form changes nothing); no value typed is rendered back
// or logged; every refusal is audited as `page.secrets` with its code.
import { hasCode } from "@airlock/sdk";
import type { Context } from "hono";
import type { AirlockHost } from "../../../contracts/host.ts";
import { html, pageForm, refuse } from "./form.ts";
import { escapeHtml, notice, page } from "./html.ts";
import { mintFormToken, openSecretTicket, type SecretTicket } from "./tickets.ts";

const MAX_SECRET_CHARS = 8192;

const binding = (ticket: SecretTicket): string => `secrets:${ticket.nonce}`;
const nothingLeft = (c: Context) =>
  html(c, notice("Nothing to enter", "Every secret this tool needs is set now. You can close this page."));

/** GET: a field per key still missing. */
export async function secretPage(host: AirlockHost, c: Context): Promise<Response> {
  const ticket = await openTicket(
    host,
    c,
    "This link is unknown or has expired; call the tool again for a new one.",
  );
  if (ticket instanceof Response) return ticket;
  const keys = await askableOrRefuse(host, c, ticket);
  if (keys instanceof Response) return keys;
  if (keys.length === 0) return nothingLeft(c);
  const fields = keys
    .map(
      (k) =>
        `<label for="s_${escapeHtml(k)}">${escapeHtml(k)}</label><input id="s_${escapeHtml(k)}" name="secret_${escapeHtml(k)}" type="password" required maxlength="${MAX_SECRET_CHARS}" autocomplete="off">`,
    )
    .join("\n");
  const body = `<p>The tool <strong>${escapeHtml(ticket.tool)}</strong> of agent <strong>${escapeHtml(ticket.agent)}</strong> needs ${keys.length === 1 ? "a secret" : "secrets"} to run.</p>
<p class="hint">What you enter goes to this host only (never to the AI client or its model) and is stored encrypted.</p>
<form method="post" autocomplete="off">
<input type="hidden" name="form_token" value="${escapeHtml(mintFormToken(host, binding(ticket)))}">
${fields}
<div class="actions"><button type="submit" class="primary">Save</button></div>
</form>`;
  return html(c, page("Enter a secret", body));
}

/** POST: stores the values of the keys still missing (none left: nothing is written). */
export async function secretPost(host: AirlockHost, c: Context): Promise<Response> {
  const ticket = await openTicket(host, c, "This link is unknown or has expired.");
  if (ticket instanceof Response) return ticket;
  const form = await pageForm(host, c, ticket.agent, "secrets", binding(ticket));
  if (form instanceof Response) return form;
  const keys = await askableOrRefuse(host, c, ticket);
  if (keys instanceof Response) return keys;
  if (keys.length === 0) return nothingLeft(c);
  const values: Record<string, string> = {};
  for (const key of keys) {
    const value = form.fields[`secret_${key}`];
    if (typeof value !== "string" || value === "" || value.length > MAX_SECRET_CHARS) {
      const why = `Enter a value for ${key}; reload the page to try again.`;
      return refuse(host, c, ticket.agent, "secrets", "AIRLOCK_PAGE_FORM_INVALID", why, { key });
    }
    values[key] = value;
  }
  await host.setSecrets(ticket.agent, values);
  return html(
    c,
    notice("Saved", "Thank you: the host has it, and the tool call goes on. You can close this page."),
  );
}

/** The secret ticket the path names, or the audited AIRLOCK_PAGE_NOT_FOUND page. */
async function openTicket(host: AirlockHost, c: Context, missing: string): Promise<SecretTicket | Response> {
  const ticket = openSecretTicket(host, c.req.param("ticket") ?? "");
  return ticket ?? refuse(host, c, null, "secrets", "AIRLOCK_PAGE_NOT_FOUND", missing);
}

/** The ticket's keys still missing, or the audited AIRLOCK_PAGE_SECRET_NOT_ALLOWED page. */
async function askableOrRefuse(
  host: AirlockHost,
  c: Context,
  ticket: SecretTicket,
): Promise<string[] | Response> {
  const keys = await askable(host, ticket.agent, ticket.keys);
  if (keys !== null) return keys;
  const why = "The operator does not let these secrets be entered here.";
  return refuse(host, c, ticket.agent, "secrets", "AIRLOCK_PAGE_SECRET_NOT_ALLOWED", why);
}

/** The ticket's keys still missing, or null when the operator no longer allows one of them. */
async function askable(host: AirlockHost, agent: string, keys: readonly string[]): Promise<string[] | null> {
  const policy = await host.getPeoplePolicy(agent).catch((error: unknown) => {
    // An agent deleted since the ticket was minted has no askable secret.
    if (hasCode(error) && error.code === "AIRLOCK_AGENT_NOT_FOUND") return null;
    throw error;
  });
  if (policy === null) return null;
  if (!keys.every((k) => policy.askSecrets.includes(k))) return null;
  const views = await host.listSecrets(agent);
  return keys.filter((k) => !views.some((v) => v.key === k && v.set));
}
