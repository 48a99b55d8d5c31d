// People in the loop over MCP: the PeopleChannel a tools/call hands the pipeline, in each era.
// - 2025 era: elicitation requests pushed on the call's own stream (`elicitation/create`, form
//   mode for approvals and ctx.elicit, URL mode for the host's secret page), answered while the
//   call waits;
// - 2026-07-28: the multi-round-trip result. A question the round has no answer for is put in
//   `pending` and the call's round ends (AIRLOCK_INPUT_REQUIRED); `finish` turns that into an
//   input_required result whose requestState is sealed under the host's key (the endpoint is
//   stateless, the retry may reach another replica). The retried request carries the answers;
//   the call runs again from the start and each question finds its answer in this round's
//   responses or in the sealed answers of earlier rounds. When the operator decides (and the
//   client opens URLs), the round ends with a URL elicitation to the approval page and the
//   sealed state carries the approval's id; the retry reads the decision (operator-round.ts).
// Invariants: only what the client declared is asked (no form support → the operator decides /
// ctx.elicit answers "unsupported"; no URL support or no page origin → missing secrets stay
// missing); a sealed state opens only for the same agent, tool and input within its lifetime;
// an answer is used only for a question this host asked; a secret never travels over MCP.
import { randomUUID } from "node:crypto";
import { AirlockError } from "@airlock/sdk";
import {
  CLIENT_CAPABILITIES_META_KEY,
  type InputRequest,
  type InputRequiredResult,
  inputRequired,
  ProtocolError,
  type Server,
  type ServerContext,
  type ElicitResult as WireElicitResult,
} from "@modelcontextprotocol/server";
import type { AirlockHost } from "../../contracts/host.ts";
import { PEOPLE_ERRORS } from "../../engine/people/errors.ts";
import { checkContent, checkForm } from "../../engine/people/form-schema.ts";
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
} from "../../engine/people/types.ts";
import { mintSecretTicket } from "../http/people/tickets.ts";
import { waitForSecrets, waitUntil } from "./people-waits.ts";
import {
  inputDigest,
  isElicitResult,
  MRTR_PURPOSE,
  MRTR_TTL_MS,
  type RoundState,
  stateInvalid,
} from "./round-state.ts";

/** How long a 2025 approval or ctx.elicit question waits for the client (the call's signal ends it sooner). */
export const ASK_TIMEOUT_MS = 10 * 60 * 1000;
/** How long a call waits for the person to enter a secret after the client opened the page. */
export const SECRET_WAIT_MS = 5 * 60 * 1000;
/** On a 2026-07-28 retry the request itself waits; bounded below common client timeouts. */
export const SECRET_WAIT_MODERN_MS = 45_000;
/** On a 2026-07-28 retry the request waits this long for the operator's decision before asking again. */
export const APPROVAL_WAIT_MODERN_MS = 45_000;

const APPROVAL_KEY = "airlock.approval";
const SECRETS_KEY = "airlock.secrets";
const OPERATOR_KEY = "airlock.approval.operator";
const elicitKey = (n: number) => `airlock.elicit.${n}`;
const urlKey = (n: number) => `airlock.url.${n}`;
/** How long a call waits for a page (a connect link) to serve its purpose after the person opened it. */
export const URL_WAIT_MS = 5 * 60 * 1000;

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

export interface PeopleSetup {
  host: AirlockHost;
  server: Server;
  agent: string;
  era: "legacy" | "modern";
  ctx: ServerContext;
  /** The tool as the client names it. */
  wireName: string;
  input: unknown;
  /** Origin of the host's pages (http://host:port) when they are reachable; undefined on stdio. */
  pagesOrigin: string | undefined;
  /** 2026-07-28: how long a retry waits for the operator's decision (default APPROVAL_WAIT_MODERN_MS). */
  approvalWaitMs?: number;
  log: (error: unknown) => void;
}

function inputRequiredSignal(): AirlockError {
  return new AirlockError("AIRLOCK_INPUT_REQUIRED", "the client must answer first", {
    status: PEOPLE_ERRORS.AIRLOCK_INPUT_REQUIRED.status,
  });
}

/** What the client said it can answer: form and URL elicitation. */
export function clientElicitation(setup: Pick<PeopleSetup, "era" | "ctx" | "server">): {
  form: boolean;
  url: boolean;
} {
  const declared =
    setup.era === "modern"
      ? (
          (setup.ctx.mcpReq.envelope as Record<string, unknown> | undefined)?.[
            CLIENT_CAPABILITIES_META_KEY
          ] as { elicitation?: Record<string, unknown> } | undefined
        )?.elicitation
      : setup.server.getClientCapabilities()?.elicitation;
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
  readonly #setup: PeopleSetup;
  readonly #ask: { form: boolean; url: boolean };
  /** 2026-07-28: answers known this round (sealed earlier ones + this round's responses to asked keys). */
  readonly #answers: Record<string, WireElicitResult> = {};
  readonly #pending = new Map<string, InputRequest>();
  #elicits = 0;
  #urls = 0;
  /** The operator's approval of an earlier round (sealed), the client's answer to its page, and this round's. */
  #operator: { approvalId: string; answer: "accept" | "decline" | "cancel" | undefined } | undefined;
  #operatorAsked: string | undefined;

  constructor(setup: PeopleSetup) {
    this.#setup = setup;
    this.#ask = clientElicitation(setup);
    if (setup.era === "modern") this.#openRound();
  }

  /** Fills #answers from the verified state and the responses to what that state asked. */
  #openRound(): void {
    const { ctx, agent, wireName, input } = this.#setup;
    const state = ctx.mcpReq.requestState<RoundState>();
    if (state === undefined) return;
    if (
      typeof state !== "object" ||
      state.a !== agent ||
      state.t !== wireName ||
      state.h !== inputDigest(input)
    ) {
      throw stateInvalid("requestState belongs to another call; call the tool again without it");
    }
    Object.assign(this.#answers, state.r);
    const asked = new Set(Array.isArray(state.q) ? state.q : []);
    const responses = ctx.mcpReq.inputResponses ?? {};
    if (typeof state.o === "string") {
      const answer = asked.has(OPERATOR_KEY) ? responses[OPERATOR_KEY] : undefined;
      this.#operator = { approvalId: state.o, answer: isElicitResult(answer) ? answer.action : undefined };
    }
    for (const [key, value] of Object.entries(responses)) {
      // The page's answer is asked afresh each round; it is never kept among the answers.
      if (key === OPERATOR_KEY) continue;
      // Only an answer to a question this host asked last round counts.
      if (!asked.has(key) || Object.hasOwn(this.#answers, key) || !isElicitResult(value)) continue;
      this.#answers[key] = value;
    }
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
    if (this.#ask.url && this.#setup.pagesOrigin !== undefined) {
      channel.supplySecrets = (question, signal) => this.#supplySecrets(question, signal);
      if (this.#setup.era === "modern") {
        channel.operatorRound = {
          earlier: this.#operator,
          waitMs: this.#setup.approvalWaitMs ?? APPROVAL_WAIT_MODERN_MS,
          ask: (approvalId, toolName) => this.#askOperator(approvalId, toolName),
        };
      }
    }
    return channel;
  }

  /** The input_required result when the round ended on a question (2026-07-28), else undefined. */
  finish(errorCode: string | undefined): InputRequiredResult | undefined {
    if (this.#setup.era !== "modern" || errorCode !== "AIRLOCK_INPUT_REQUIRED" || this.#pending.size === 0)
      return undefined;
    const { host, agent, wireName, input } = this.#setup;
    const state: RoundState = {
      a: agent,
      t: wireName,
      h: inputDigest(input),
      x: Date.now() + MRTR_TTL_MS,
      r: this.#answers,
      q: [...this.#pending.keys()],
      ...(this.#operatorAsked === undefined ? {} : { o: this.#operatorAsked }),
    };
    return inputRequired({
      inputRequests: Object.fromEntries(this.#pending),
      requestState: host.seal(MRTR_PURPOSE, state),
    });
  }

  /** 2026-07-28: this round ends with the client sent to the approval page (the retry carries the id). */
  #askOperator(approvalId: string, toolName: string): void {
    this.#operatorAsked = approvalId;
    this.#pending.set(
      OPERATOR_KEY,
      inputRequired.elicitUrl({
        message: `An operator must approve ${this.#setup.wireName} (${toolName}) for agent ${this.#setup.agent}; the approval page is open to the agent's operators. The call goes on once it is decided.`,
        url: `${this.#setup.pagesOrigin}/approve/${approvalId}`,
      }),
    );
  }

  /** A 2026-07-28 question: its answer when this round has one, else it is asked and the round ends. */
  #modern(key: string, request: InputRequest): WireElicitResult {
    const answer = this.#answers[key];
    if (answer !== undefined) return answer;
    this.#pending.set(key, request);
    throw inputRequiredSignal();
  }

  async #push(
    params: Parameters<ServerContext["mcpReq"]["elicitInput"]>[0],
    signal: AbortSignal | undefined,
  ) {
    const { ctx } = this.#setup;
    return ctx.mcpReq.elicitInput(params, {
      relatedRequestId: ctx.mcpReq.id,
      timeout: ASK_TIMEOUT_MS,
      ...(signal === undefined ? {} : { signal }),
    });
  }

  async #approve(
    question: ApprovalQuestion,
    signal: AbortSignal | undefined,
  ): Promise<ClientDecision | undefined> {
    const message = approvalMessage(question, this.#setup.wireName);
    if (this.#setup.era === "modern") {
      const answer = this.#modern(
        APPROVAL_KEY,
        inputRequired.elicit({ message, requestedSchema: APPROVAL_FORM.wire as never }),
      );
      return toDecision(answer, "input_required");
    }
    const answer = await this.#push(
      { mode: "form", message, requestedSchema: APPROVAL_FORM.wire as never },
      signal,
    );
    return toDecision(answer, "elicitation");
  }

  async #elicit(request: ElicitRequest, signal: AbortSignal): Promise<ElicitResult> {
    const key = elicitKey(this.#elicits++);
    if (this.#setup.era === "modern") {
      return toElicitResult(
        this.#modern(
          key,
          inputRequired.elicit({ message: request.message, requestedSchema: request.schema as never }),
        ),
      );
    }
    try {
      return toElicitResult(
        await this.#push(
          { mode: "form", message: request.message, requestedSchema: request.schema as never },
          signal,
        ),
      );
    } catch (error) {
      // The SDK checks accepted content against the schema first: the host's code for it.
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
    const { host, pagesOrigin, wireName } = this.#setup;
    const ticket = mintSecretTicket(host, { agent: question.agent, keys: question.keys, tool: wireName });
    const url = `${pagesOrigin}/secrets/${ticket}`;
    const message = `The tool ${wireName} needs ${question.keys.join(", ")}. Enter ${question.keys.length === 1 ? "it" : "them"} on the host's page; the value goes to the host only.`;
    if (this.#setup.era === "modern") {
      const answer = this.#modern(SECRETS_KEY, inputRequired.elicitUrl({ message, url }));
      if (answer.action !== "accept") return "declined";
      return (await waitForSecrets(host, question.agent, question.keys, signal, SECRET_WAIT_MODERN_MS))
        ? "supplied"
        : "timeout";
    }
    const elicitationId = randomUUID();
    const answer = await this.#push({ mode: "url", message, url, elicitationId }, signal);
    if (answer.action !== "accept") return "declined";
    const set = await waitForSecrets(host, question.agent, question.keys, signal, SECRET_WAIT_MS);
    if (set) await this.completeUrl(elicitationId);
    return set ? "supplied" : "timeout";
  }

  /** Any host page (a connect link): asked, then waited for until `done` says it served its purpose. */
  async #openUrl(question: UrlQuestion, signal: AbortSignal | undefined): Promise<UrlOutcome> {
    const { message, url } = question;
    if (this.#setup.era === "modern") {
      const answer = this.#modern(urlKey(this.#urls++), inputRequired.elicitUrl({ message, url }));
      if (answer.action !== "accept") return "declined";
      return (await waitUntil(question.done, signal, SECRET_WAIT_MODERN_MS)) ? "done" : "timeout";
    }
    const elicitationId = randomUUID();
    const answer = await this.#push({ mode: "url", message, url, elicitationId }, signal);
    if (answer.action !== "accept") return "declined";
    const done = await waitUntil(question.done, signal, URL_WAIT_MS);
    if (done) await this.completeUrl(elicitationId);
    return done ? "done" : "timeout";
  }

  /** 2025-11-25: tells the client a URL elicitation is done (best effort). */
  async completeUrl(elicitationId: string): Promise<void> {
    const { server, ctx, log } = this.#setup;
    try {
      await server.createElicitationCompletionNotifier(elicitationId, { relatedRequestId: ctx.mcpReq.id })();
    } catch (error) {
      log(error);
    }
  }

  /**
   * 2025 era, operator decides: points a client that opens URLs at the host's approval page
   * (where the operator signs in with an operator token). Answers the elicitation id, or undefined.
   */
  offerApprovalPage(approvalId: string, toolName: string): string | undefined {
    const { pagesOrigin, era } = this.#setup;
    if (era !== "legacy" || !this.#ask.url || pagesOrigin === undefined) return undefined;
    const elicitationId = randomUUID();
    const url = `${pagesOrigin}/approve/${approvalId}`;
    this.#push(
      {
        mode: "url",
        message: `An operator must approve ${toolName}; the approval page is open to the agent's operators.`,
        url,
        elicitationId,
      },
      undefined,
      // The client's answer (it opened the page, or not) changes nothing: the operator decides.
    ).catch(() => undefined);
    return elicitationId;
  }
}
