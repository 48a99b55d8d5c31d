// The approval page, /approve/:id: a pending call waiting for its agent's operator. Anyone
// holding the link sees which tool of which agent waits, and a sign-in form; only once an
// operator signs in (an operator token) does the page show the call's input and its decision
// form, whose form token is sealed for this approval and the operator token that signed in.
// Invariants: the call's input is rendered only in the answer to an operator's sign-in; a
// decision needs an operator token that is live at the moment of the decision (presented again,
// or the one that signed in, checked in the store, so a revoked token decides nothing); every
// refusal is audited as `page.approve` with its code; a sign-in is audited as
// `page.approve.sign_in` (who saw the input); nothing else a visitor does is stored.
import { hasCode } from "@airlock/sdk";
import type { Context } from "hono";
import type { AirlockHost, PendingApproval } from "../../../contracts/host.ts";
import type { TokenRecord } from "../../../contracts/records.ts";
import { html, type PageForm, pageForm, refuse } from "./form.ts";
import { escapeHtml, humanTime, notice, page } from "./html.ts";
import { mintFormToken } from "./tickets.ts";

const binding = (approval: PendingApproval): string => `approve:${approval.id}`;

function summary(approval: PendingApproval): string {
  return `<dl class="consent-facts"><dt>Agent</dt><dd><strong>${escapeHtml(approval.agent)}</strong></dd><dt>Tool</dt><dd><code>${escapeHtml(approval.toolName)}</code></dd>
<dt>Asked</dt><dd>${humanTime(approval.requestedAt)}</dd></dl>`;
}

/** The pending approval the path names, or the audited AIRLOCK_PAGE_NOT_FOUND page. */
async function pending(host: AirlockHost, c: Context): Promise<PendingApproval | Response> {
  const id = c.req.param("id");
  const approval = (await host.listApprovals()).find((a) => a.id === id);
  if (approval !== undefined) return approval;
  const why = "This approval is no longer pending: it was decided, withdrawn, or never existed.";
  return refuse(host, c, null, "approve", "AIRLOCK_PAGE_NOT_FOUND", why);
}

/** GET: what waits, and the sign-in form; never the call's input. */
export async function approvalPage(host: AirlockHost, c: Context): Promise<Response> {
  const approval = await pending(host, c);
  if (approval instanceof Response) return approval;
  const body = `<p>A call waits for an operator's decision.</p>
${summary(approval)}
<p class="hint">Sign in with an operator token of this host to see the call's input and decide.</p>
<form method="post" autocomplete="off">
<input type="hidden" name="form_token" value="${escapeHtml(mintFormToken(host, binding(approval)))}">
<label for="operator_token">Operator token</label><input id="operator_token" name="operator_token" type="password" required>
<div class="actions"><button type="submit" name="step" value="sign-in" class="primary">Sign in</button></div>
</form>`;
  return html(c, page(`Approve ${approval.toolName}?`, body));
}

/** The operator behind a POST: the token presented, else the one that signed in (still live), else null. */
async function operatorOf(host: AirlockHost, form: PageForm): Promise<TokenRecord | null> {
  const presented = form.fields.operator_token ?? "";
  if (presented !== "") {
    const who = await host.authenticate(presented);
    return who !== null && who.role === "operator" ? who : null;
  }
  if (form.operatorTokenId === null) return null;
  const live = (await host.listTokens()).find((t) => t.id === form.operatorTokenId);
  return live === undefined || live.role !== "operator" ? null : { ...live };
}

/** The call's input and the decision form, for the operator who just signed in. */
function decisionPage(host: AirlockHost, approval: PendingApproval, operator: TokenRecord): string {
  const token = mintFormToken(host, binding(approval), operator.id);
  return page(
    `Approve ${approval.toolName}?`,
    `<p>A call waits for your decision.</p>
${summary(approval)}
<h2>Input</h2><pre>${escapeHtml(JSON.stringify(approval.input, null, 2))}</pre>
<form method="post" autocomplete="off">
<input type="hidden" name="form_token" value="${escapeHtml(token)}">
<label for="reason">Reason (given to the model when you deny)</label><input id="reason" name="reason" type="text" maxlength="500">
<div class="actions"><button type="submit" name="decision" value="approve" class="primary">Approve</button><button type="submit" name="decision" value="deny" class="danger">Deny</button></div>
</form>`,
  );
}

/** POST: an operator signs in (then sees the input), or decides. */
export async function approvalPost(host: AirlockHost, c: Context): Promise<Response> {
  const approval = await pending(host, c);
  if (approval instanceof Response) return approval;
  const form = await pageForm(host, c, approval.agent, "approve", binding(approval));
  if (form instanceof Response) return form;
  const decision = form.fields.decision;
  if (decision !== undefined && decision !== "approve" && decision !== "deny") {
    const why = "A decision is approve or deny; reload the page.";
    return refuse(host, c, approval.agent, "approve", "AIRLOCK_PAGE_FORM_INVALID", why, {
      reason: "decision",
    });
  }
  const operator = await operatorOf(host, form);
  if (operator === null) {
    const why =
      "That is not an operator token of this host (or it was revoked); reload the page and sign in.";
    return refuse(host, c, approval.agent, "approve", "AIRLOCK_PAGE_FORBIDDEN", why, {
      approvalId: approval.id,
    });
  }
  if (decision === undefined) {
    await host.recordAudit({
      action: "page.approve.sign_in",
      error: null,
      agent: approval.agent,
      details: { approvalId: approval.id, tokenId: operator.id },
    });
    return html(c, decisionPage(host, approval, operator));
  }
  return decide(host, c, approval, decision === "approve", form.fields.reason ?? "");
}

async function decide(
  host: AirlockHost,
  c: Context,
  approval: PendingApproval,
  approve: boolean,
  reasonTyped: string,
): Promise<Response> {
  const reason = reasonTyped.trim().slice(0, 500);
  try {
    await host.decideApproval(approval.id, {
      approve,
      ...(approve || reason === "" ? {} : { reason }),
      via: "approval page",
    });
  } catch (error) {
    if (!hasCode(error)) throw error;
    const details = { approvalId: approval.id };
    // Its call no longer waits (cancelled, timed out, its replica gone), or someone decided first.
    if (error.code === "AIRLOCK_APPROVAL_CALL_GONE" || error.code === "AIRLOCK_APPROVAL_ALREADY_DECIDED")
      return refuse(host, c, approval.agent, "approve", error.code, error.message, details);
    if (error.code !== "AIRLOCK_APPROVAL_NOT_FOUND") throw error;
    const why = "This approval was decided or withdrawn meanwhile.";
    return refuse(host, c, approval.agent, "approve", "AIRLOCK_PAGE_NOT_FOUND", why, details);
  }
  const outcome = approve ? "approved; it runs now" : "denied";
  return html(
    c,
    notice(
      approve ? "Approved" : "Denied",
      `The call of ${approval.toolName} was ${outcome}. You can close this page.`,
    ),
  );
}
