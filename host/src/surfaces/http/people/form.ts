// What the host's people pages share: answering a page, refusing with an audited code, and
// reading a page's own POST (urlencoded, small, same origin, carrying a form token this host
// sealed for what the form is for).
// Invariants: every refusal answers a page with its code in its text and its x-airlock-error
// header, and writes an admin audit row `page.<name>` with the code (never a typed value); a
// form is accepted only with a form token sealed for its binding (tickets.ts), so a page's POST
// needs the page's GET, and nothing a visitor does is stored but the audit row of a refusal.
import type { Context } from "hono";
import type { AirlockHost } from "../../../contracts/host.ts";
import { externalOrigin } from "../authz/config.ts";
import { notice, PAGE_HEADERS } from "./html.ts";
import { openFormToken } from "./tickets.ts";

const MAX_FORM_BYTES = 16 * 1024;

/** The page's own codes, and the two refusals of a decision the approval page passes on. */
export type PageCode =
  | "AIRLOCK_PAGE_NOT_FOUND"
  | "AIRLOCK_PAGE_FORM_INVALID"
  | "AIRLOCK_PAGE_FORBIDDEN"
  | "AIRLOCK_PAGE_SECRET_NOT_ALLOWED"
  | "AIRLOCK_APPROVAL_CALL_GONE"
  | "AIRLOCK_APPROVAL_ALREADY_DECIDED";
type PageStatus = 200 | 403 | 404 | 409 | 410;
const STATUS: Record<PageCode, PageStatus> = {
  AIRLOCK_PAGE_NOT_FOUND: 404,
  AIRLOCK_PAGE_FORM_INVALID: 403,
  AIRLOCK_PAGE_FORBIDDEN: 403,
  AIRLOCK_PAGE_SECRET_NOT_ALLOWED: 403,
  AIRLOCK_APPROVAL_CALL_GONE: 410,
  AIRLOCK_APPROVAL_ALREADY_DECIDED: 409,
};

export function html(c: Context, body: string, status: PageStatus = 200, code?: string): Response {
  return c.body(body, status, {
    ...PAGE_HEADERS,
    ...(code === undefined ? {} : { "x-airlock-error": code }),
  });
}

/** The refusal page of `code`, audited as `page.<page>` (with `details`, never a typed value). */
export async function refuse(
  host: AirlockHost,
  c: Context,
  agent: string | null,
  page: string,
  code: PageCode,
  message: string,
  details: Record<string, unknown> = {},
): Promise<Response> {
  await host
    .recordAudit({
      action: `page.${page}`,
      error: code,
      agent,
      details: { method: c.req.method, ...details },
    })
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

export interface PageForm {
  fields: Record<string, string>;
  /** The operator token that signed in on this page (the form token says so), or null. */
  operatorTokenId: string | null;
}

/**
 * The fields of a page's POST once it is this page's own form: urlencoded and small, not from
 * another site's page (Origin), carrying a form token sealed for `binding` that has not expired.
 * Otherwise the refusal page (AIRLOCK_PAGE_FORM_INVALID), audited as `page.<name>`.
 */
export async function pageForm(
  host: AirlockHost,
  c: Context,
  agent: string,
  name: string,
  binding: string,
): Promise<PageForm | Response> {
  const form = await readForm(c);
  if (typeof form === "string" || foreignOrigin(host, c)) {
    const why = "This form did not come from this page; reload it.";
    return refuse(host, c, agent, name, "AIRLOCK_PAGE_FORM_INVALID", why, { reason: "not this page's form" });
  }
  const opened = openFormToken(host, binding, form.form_token);
  if (opened === null) {
    const why = "This form has expired or belongs to another page; reload the page.";
    return refuse(host, c, agent, name, "AIRLOCK_PAGE_FORM_INVALID", why, { reason: "form token" });
  }
  return { fields: form, operatorTokenId: opened.operatorTokenId };
}
