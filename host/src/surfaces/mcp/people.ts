// People in the loop over MCP: the PeopleChannel a tools/call hands the pipeline, whatever the
// era. This file holds what both eras share: which questions may be asked (what the client
// declared), the approval form and its answer, ctx.elicit's answer, the secret page (a ticket
// minted here) and the waits after a page was opened (people-waits.ts). How a question travels
// is the era's (EraRound, era.ts): 2025, an elicitation request answered while the call waits
// (era-2025/round.ts); 2026-07-28, an input_required round with sealed request state
// (era-2026/round.ts).
// Invariants: only what the client declared is asked (no form support → the operator decides /
// ctx.elicit answers "unsupported"; no URL support or no page origin → missing secrets stay
// missing, no approval page is offered); an answer that does not match the approval form is a
// denial; a secret never travels over MCP (the person enters it on the host's page).
import { AirlockError } from "@airlock/sdk";
import {
  type InputRequiredResult,
  ProtocolError,
  type ElicitResult as WireElicitResult,
} from "@modelcontextprotocol/server";
import type {
  ApprovalPath,
  ApprovalQuestion,
  ClientDecision,
  ElicitRequest,
  ElicitResult,
  PeopleChannel,
  SecretOutcome,
  SecretQuestion,
  UrlOutcome,
  UrlQuestion,
} from "../../contracts/people.ts";
import { checkContent, checkForm, PEOPLE_ERRORS } from "../../index.ts";
import { mintSecretTicket } from "../http/people/tickets.ts";
import type { EraRound, ProtocolEra, RoundCall } from "./era.ts";
import { waitForSecrets, waitUntil } from "./people-waits.ts";

const APPROVAL_KEY = "airlock.approval";
const SECRETS_KEY = "airlock.secrets";
const elicitKey = (n: number) => `airlock.elicit.${n}`;
const urlKey = (n: number) => `airlock.url.${n}`;

const APPROVAL_FORM = checkForm({
  message: "approve?",
  schema: {
    type: "object",
    properties: {
      decision: {
        type: "string",
        title: "Decision",
        oneOf: [
          { const: "approve", title: "Approve" },
          { const: "deny", title: "Deny" },
        ],
      },
      reason: { type: "string", title: "Reason (given to the model when you deny)", maxLength: 500 },
    },
    required: ["decision"],
  },
});

/** What the client said it can answer: form and URL elicitation. */
export function elicitationModes(declared: Record<string, unknown> | null | undefined): {
  form: boolean;
  url: boolean;
} {
  if (declared === undefined || declared === null) return { form: false, url: false };
  // A bare `elicitation: {}` is form support (the rule before modes existed).
  return { form: declared.form !== undefined || declared.url === undefined, url: declared.url !== undefined };
}

function approvalMessage(question: ApprovalQuestion, wireName: string): string {
  let input = JSON.stringify(question.input);
  if (input.length > 2000) input = `${input.slice(0, 2000)}… (${input.length} characters in all)`;
  const title = question.title === undefined ? wireName : `${question.title} (${wireName})`;
  return `Approve this call of ${title} for agent ${question.agent}?\nInput: ${input}`;
}

function toDecision(answer: WireElicitResult, path: ApprovalPath): ClientDecision {
  if (answer.action === "cancel")
    return { approved: false, reason: "dismissed at the client", dismissed: true, path };
  if (answer.action === "decline")
    return { approved: false, reason: "declined at the client", dismissed: false, path };
  let content: Record<string, unknown>;
  try {
    content = checkContent(APPROVAL_FORM, answer.content ?? {});
  } catch {
    return { approved: false, reason: "the answer did not match the approval form", dismissed: false, path };
  }
  if (content.decision === "approve") return { approved: true, path };
  const reason =
    typeof content.reason === "string" && content.reason.trim() !== ""
      ? content.reason.trim()
      : "denied at the client";
  return { approved: false, reason, dismissed: false, path };
}

function toElicitResult(answer: WireElicitResult): ElicitResult {
  if (answer.action === "accept") return { action: "accept", content: (answer.content ?? {}) as never };
  return { action: answer.action };
}

/** One tools/call's channel; `finish` says whether the call ends this round with input_required. */
export class PeopleRound {
  readonly #call: RoundCall;
  readonly #ask: { form: boolean; url: boolean };
  readonly #round: EraRound;
  #elicits = 0;
  #urls = 0;

  constructor(call: RoundCall, era: ProtocolEra) {
    this.#call = call;
    this.#ask = elicitationModes(era.declaredElicitation(call.exchange));
    this.#round = era.openRound(call);
  }

  channel(): PeopleChannel {
    const channel: PeopleChannel = {};
    if (this.#ask.form) {
      channel.approve = (question, signal) => this.#approve(question, signal);
      channel.elicit = (request, signal) => this.#elicit(request, signal);
    } else {
      channel.elicit = async () => ({ action: "unsupported" });
    }
    if (this.#ask.url) channel.openUrl = (question, signal) => this.#openUrl(question, signal);
    if (this.#ask.url && this.#call.pagesOrigin !== undefined) {
      channel.supplySecrets = (question, signal) => this.#supplySecrets(question, signal);
      const operatorRound = this.#round.operatorRound();
      if (operatorRound !== undefined) channel.operatorRound = operatorRound;
    }
    return channel;
  }

  /** The input_required result when the round ended on a question (2026-07-28), else undefined. */
  finish(errorCode: string | undefined): InputRequiredResult | undefined {
    return this.#round.finish(errorCode);
  }

  /**
   * The operator decides: a client that opens URLs may be pointed at the host's approval page
   * (where the operator signs in with an operator token), as its era does. Answers how to tell
   * the client the page is done, or undefined.
   */
  offerApprovalPage(approvalId: string, toolName: string): (() => Promise<void>) | undefined {
    if (!this.#ask.url || this.#call.pagesOrigin === undefined) return undefined;
    return this.#round.offerApprovalPage(approvalId, toolName);
  }

  async #approve(question: ApprovalQuestion, signal: AbortSignal | undefined): Promise<ClientDecision> {
    const message = approvalMessage(question, this.#call.wireName);
    const answer = await this.#round.form(APPROVAL_KEY, message, APPROVAL_FORM.wire, signal);
    return toDecision(answer, this.#round.approvalPath);
  }

  async #elicit(request: ElicitRequest, signal: AbortSignal): Promise<ElicitResult> {
    const key = elicitKey(this.#elicits++);
    try {
      return toElicitResult(await this.#round.form(key, request.message, request.schema, signal));
    } catch (error) {
      // The SDK checks accepted content against the schema first (2025): the host's code for it.
      if (error instanceof ProtocolError && /does not match requested schema/.test(error.message)) {
        throw new AirlockError(
          "AIRLOCK_ELICIT_CONTENT_INVALID",
          `the client's answer does not match the form: ${error.message}`,
          {
            status: PEOPLE_ERRORS.AIRLOCK_ELICIT_CONTENT_INVALID.status,
          },
        );
      }
      throw error;
    }
  }

  async #supplySecrets(question: SecretQuestion, signal: AbortSignal | undefined): Promise<SecretOutcome> {
    const { host, pagesOrigin, wireName } = this.#call;
    const ticket = mintSecretTicket(host, { agent: question.agent, keys: question.keys, tool: wireName });
    const url = `${pagesOrigin}/secrets/${ticket}`;
    const message = `The tool ${wireName} needs ${question.keys.join(", ")}. Enter ${question.keys.length === 1 ? "it" : "them"} on the host's page; the value goes to the host only.`;
    const asked = await this.#round.url(SECRETS_KEY, message, url, signal);
    if (asked.answer.action !== "accept") return "declined";
    const set = await waitForSecrets(host, question.agent, question.keys, signal, this.#round.waitMs.secrets);
    if (set) await asked.complete?.();
    return set ? "supplied" : "timeout";
  }

  /** Any host page (a connect link): asked, then waited for until `done` says it served its purpose. */
  async #openUrl(question: UrlQuestion, signal: AbortSignal | undefined): Promise<UrlOutcome> {
    const { message, url } = question;
    const asked = await this.#round.url(urlKey(this.#urls++), message, url, signal);
    if (asked.answer.action !== "accept") return "declined";
    const done = await waitUntil(question.done, signal, this.#round.waitMs.urls);
    if (done) await asked.complete?.();
    return done ? "done" : "timeout";
  }
}
