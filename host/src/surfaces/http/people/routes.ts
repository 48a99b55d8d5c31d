// The host's people pages, mounted on the admin server beside /mcp (not part of /admin, the
// operator console's):
// - GET/POST /approve/:id — a pending approval: the tool, its agent and input; an operator signs
//   in with an operator token and approves or denies (with a reason). Where an MCP client is
//   pointed when the agent's operator must decide (URL-mode elicitation: while the call waits in
//   the 2025 era, as an input_required round in 2026-07-28, whose retry reads the decision).
// - GET/POST /secrets/:ticket — the missing secrets of a call: the person enters the values,
//   which go to the host over this page only, and are stored encrypted like any secret.
// Invariants: every POST needs the single-use form token its GET minted for the same approval or
// ticket (tickets.ts) and, when the browser sends one, an Origin equal to this server's; a
// secret page sets only keys the operator allows for the agent and that are still missing;
// no value typed is rendered back or logged; every refusal answers a page with its code and
// is audited.

import { hasCode } from "@airlock/sdk";
import type { Context, Hono } from "hono";
import type { AirlockHost } from "../../../contracts/host.ts";
import { externalOrigin } from "../authz/config.ts";
import type { ExtraPath } from "../openapi.ts";
import { escapeHtml, notice, PAGE_HEADERS, page } from "./html.ts";
import { mintFormToken, openSecretTicket, takeFormToken } from "./tickets.ts";

const MAX_FORM_BYTES = 16 * 1024;
const MAX_SECRET_CHARS = 8192;

type PageCode =
  | "AIRLOCK_PAGE_NOT_FOUND"
  | "AIRLOCK_PAGE_FORM_INVALID"
  | "AIRLOCK_PAGE_FORBIDDEN"
  | "AIRLOCK_PAGE_SECRET_NOT_ALLOWED";
const STATUS: Record<PageCode, 403 | 404> = {
  AIRLOCK_PAGE_NOT_FOUND: 404,
  AIRLOCK_PAGE_FORM_INVALID: 403,
  AIRLOCK_PAGE_FORBIDDEN: 403,
  AIRLOCK_PAGE_SECRET_NOT_ALLOWED: 403,
};

function html(c: Context, body: string, status: 200 | 403 | 404 | 413 | 415 = 200, code?: string): Response {
  return c.body(body, status, {
    ...PAGE_HEADERS,
    ...(code === undefined ? {} : { "x-airlock-error": code }),
  });
}

async function refuse(
  host: AirlockHost,
  c: Context,
  agent: string | null,
  page: string,
  code: PageCode,
  message: string,
): Promise<Response> {
  await host
    .recordAudit({ action: `page.${page}`, error: code, agent, details: { method: c.req.method } })
    .catch(() => undefined); // the refusal stands whether or not its row could be written
  return html(c, notice("Not possible", `${message} (${code})`, "error"), STATUS[code], code);
}

/** The form fields of a POST (urlencoded, small), or a refusal reason. */
async function readForm(c: Context): Promise<Record<string, string> | "too-large" | "not-form"> {
  const type = c.req.header("content-type") ?? "";
  if (!type.startsWith("application/x-www-form-urlencoded")) return "not-form";
  const text = await c.req.text();
  if (Buffer.byteLength(text) > MAX_FORM_BYTES) return "too-large";
  const out: Record<string, string> = {};
  for (const [k, v] of new URLSearchParams(text)) if (!Object.hasOwn(out, k)) out[k] = v;
  return out;
}

/** A POST from another site's page (the browser says so in Origin) is refused. */
function foreignOrigin(host: AirlockHost, c: Context): boolean {
  const origin = c.req.header("origin");
  // this server as the browser sees it: its own origin, or the operator's public URL (a proxy)
  return (
    origin !== undefined && origin !== new URL(c.req.url).origin && origin !== externalOrigin(host, c.req.url)
  );
}

/**
 * The fields of a page's POST once it is this page's own form: urlencoded and small, not from
 * another site's page (Origin), carrying the single-use form token minted for `purpose`
 * (spent here). Otherwise the refusal page, audited as `page.<name>`.
 */
async function pageForm(
  host: AirlockHost,
  c: Context,
  agent: string,
  name: string,
  purpose: string,
): Promise<Record<string, string> | Response> {
  const form = await readForm(c);
  if (typeof form === "string" || foreignOrigin(host, c)) {
    const why = "This form did not come from this page; reload it.";
    return refuse(host, c, agent, name, "AIRLOCK_PAGE_FORM_INVALID", why);
  }
  if (!(await takeFormToken(host, agent, purpose, form.form_token))) {
    const why = "This form was already used or has expired; reload the page.";
    return refuse(host, c, agent, name, "AIRLOCK_PAGE_FORM_INVALID", why);
  }
  return form;
}

export function mountPeoplePages(app: Hono, host: AirlockHost): void {
  app.get("/approve/:id", async (c) => {
    const id = c.req.param("id");
    const approval = (await host.listApprovals()).find((a) => a.id === id);
    if (approval === undefined) {
      return refuse(
        host,
        c,
        null,
        "approve",
        "AIRLOCK_PAGE_NOT_FOUND",
        "This approval is no longer pending: it was decided, withdrawn, or never existed.",
      );
    }
    const token = await mintFormToken(host, approval.agent, `approve:${approval.id}`);
    const body = `<p>A call waits for an operator's decision.</p>
<dl><dt>Agent</dt><dd>${escapeHtml(approval.agent)}</dd><dt>Tool</dt><dd>${escapeHtml(approval.toolName)}</dd>
<dt>Requested</dt><dd>${escapeHtml(approval.requestedAt)}</dd></dl>
<p>Input:</p><pre>${escapeHtml(JSON.stringify(approval.input, null, 2))}</pre>
<form method="post" autocomplete="off">
<input type="hidden" name="form_token" value="${token}">
<label for="operator_token">Operator token</label><input id="operator_token" name="operator_token" type="password" required>
<label for="reason">Reason (given to the model when you deny)</label><input id="reason" name="reason" type="text" maxlength="500">
<button type="submit" name="decision" value="approve">Approve</button><button type="submit" name="decision" value="deny">Deny</button>
</form>`;
    return html(c, page(`Approve ${approval.toolName}?`, body));
  });

  app.post("/approve/:id", async (c) => {
    const id = c.req.param("id");
    const approval = (await host.listApprovals()).find((a) => a.id === id);
    if (approval === undefined)
      return refuse(
        host,
        c,
        null,
        "approve",
        "AIRLOCK_PAGE_NOT_FOUND",
        "This approval is no longer pending.",
      );
    const form = await pageForm(host, c, approval.agent, "approve", `approve:${approval.id}`);
    if (form instanceof Response) return form;
    const who = await host.authenticate(form.operator_token ?? "");
    if (who === null || who.role !== "operator") {
      return refuse(
        host,
        c,
        approval.agent,
        "approve",
        "AIRLOCK_PAGE_FORBIDDEN",
        "That is not an operator token of this host; reload the page and try again.",
      );
    }
    const approve = form.decision === "approve";
    const reason = (form.reason ?? "").trim().slice(0, 500);
    try {
      await host.decideApproval(id, {
        approve,
        ...(approve || reason === "" ? {} : { reason }),
        via: "approval page",
      });
    } catch {
      return refuse(
        host,
        c,
        approval.agent,
        "approve",
        "AIRLOCK_PAGE_NOT_FOUND",
        "This approval was decided or withdrawn meanwhile.",
      );
    }
    return html(
      c,
      notice(
        approve ? "Approved" : "Denied",
        `The call of ${approval.toolName} was ${approve ? "approved; it runs now" : "denied"}. You can close this page.`,
      ),
    );
  });

  app.get("/secrets/:ticket", async (c) => {
    const ticket = await openTicket(
      host,
      c,
      "This link is unknown or has expired; call the tool again for a new one.",
    );
    if (ticket instanceof Response) return ticket;
    const keys = await askableOrRefuse(host, c, ticket);
    if (keys instanceof Response) return keys;
    if (keys.length === 0)
      return html(
        c,
        notice("Nothing to enter", "Every secret this tool needs is set now. You can close this page."),
      );
    const token = await mintFormToken(host, ticket.agent, `secrets:${ticket.nonce}`);
    const fields = keys
      .map(
        (k) =>
          `<label for="s_${escapeHtml(k)}">${escapeHtml(k)}</label><input id="s_${escapeHtml(k)}" name="secret_${escapeHtml(k)}" type="password" required maxlength="${MAX_SECRET_CHARS}" autocomplete="off">`,
      )
      .join("\n");
    const body = `<p>The tool <strong>${escapeHtml(ticket.tool)}</strong> of agent <strong>${escapeHtml(ticket.agent)}</strong> needs ${keys.length === 1 ? "a secret" : "secrets"} to run.</p>
<p class="note">What you enter goes to this host only (never to the AI client or its model) and is stored encrypted.</p>
<form method="post" autocomplete="off">
<input type="hidden" name="form_token" value="${token}">
${fields}
<button type="submit">Save</button>
</form>`;
    return html(c, page("Enter a secret", body));
  });

  app.post("/secrets/:ticket", async (c) => {
    const ticket = await openTicket(host, c, "This link is unknown or has expired.");
    if (ticket instanceof Response) return ticket;
    const form = await pageForm(host, c, ticket.agent, "secrets", `secrets:${ticket.nonce}`);
    if (form instanceof Response) return form;
    const keys = await askableOrRefuse(host, c, ticket);
    if (keys instanceof Response) return keys;
    const values: Record<string, string> = {};
    for (const key of keys) {
      const value = form[`secret_${key}`];
      if (typeof value !== "string" || value === "" || value.length > MAX_SECRET_CHARS) {
        return refuse(
          host,
          c,
          ticket.agent,
          "secrets",
          "AIRLOCK_PAGE_FORM_INVALID",
          `Enter a value for ${key}; reload the page to try again.`,
        );
      }
      values[key] = value;
    }
    if (keys.length > 0) await host.setSecrets(ticket.agent, values);
    return html(
      c,
      notice("Saved", "Thank you: the host has it, and the tool call goes on. You can close this page."),
    );
  });
}

type SecretTicket = NonNullable<ReturnType<typeof openSecretTicket>>;

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

/** The pages in the admin API's OpenAPI document. */
export const PEOPLE_PAGES_OPENAPI_PATHS: ExtraPath[] = [
  {
    path: "/approve/{id}",
    param: "id",
    summary: "The approval page of a pending call (an operator decides with an operator token).",
  },
  {
    path: "/secrets/{ticket}",
    param: "ticket",
    summary: "The page where a person enters a call's missing secrets (only those the operator allows).",
  },
].map(({ path, param, summary }) => ({
  path,
  item: Object.fromEntries(
    ["get", "post"].map((method) => [
      method,
      {
        operationId: `peoplePage${path.split("/")[1] === "approve" ? "Approve" : "Secrets"}${method === "get" ? "Get" : "Post"}`,
        summary,
        tags: ["people pages"],
        "x-airlock-access": "public",
        parameters: [{ name: param, in: "path", required: true, schema: { type: "string" } }],
        responses: {
          "200": { description: "An HTML page." },
          "403": {
            description:
              "A form token that is missing, used or expired; a wrong operator token; a secret not allowed.",
          },
          "404": { description: "Nothing pending under this id or ticket." },
        },
      },
    ]),
  ),
}));
