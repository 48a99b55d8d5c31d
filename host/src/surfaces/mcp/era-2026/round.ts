// How a 2026-07-28 tools/call asks people: the multi-round-trip result. A question the round has
// no answer for is put in `pending` and the call's round ends (AIRLOCK_INPUT_REQUIRED); `finish`
// turns that into an input_required result whose requestState is sealed under the host's key
// (the endpoint is stateless, the retry may reach another replica). The retried request carries
// the answers; the call runs again from the start and each question finds its answer in this
// round's responses or in the sealed answers of earlier rounds. When the operator decides (and
// the client opens URLs), the round ends with a URL elicitation to the approval page and the
// sealed state carries the approval's id; the retry reads the decision (operator-round.ts).
// Invariants: a sealed state opens only for the same agent, tool and input within its lifetime
// (round-state.ts); an answer is used only for a question this host asked last round; the
// approval page's answer is asked afresh each round, never kept among the answers.
import { AirlockError } from "@airlock/sdk";
import {
  type InputRequest,
  type InputRequiredResult,
  inputRequired,
  type ElicitResult as WireElicitResult,
} from "@modelcontextprotocol/server";
import type { OperatorRound } from "../../../contracts/people.ts";
import { PEOPLE_ERRORS } from "../../../index.ts";
import type { AskedUrl, EraRound, RoundCall } from "../era.ts";
import {
  inputDigest,
  isElicitResult,
  MRTR_PURPOSE,
  MRTR_TTL_MS,
  type RoundState,
  stateInvalid,
} from "./round-state.ts";

/** On a 2026-07-28 retry the request itself waits; bounded below common client timeouts. */
export const SECRET_WAIT_MODERN_MS = 45_000;
/** On a 2026-07-28 retry the request waits this long for the operator's decision before asking again. */
export const APPROVAL_WAIT_MODERN_MS = 45_000;

const OPERATOR_KEY = "airlock.approval.operator";

function inputRequiredSignal(): AirlockError {
  return new AirlockError("AIRLOCK_INPUT_REQUIRED", "the client must answer first", {
    status: PEOPLE_ERRORS.AIRLOCK_INPUT_REQUIRED.status,
  });
}

export class ModernRound implements EraRound {
  readonly approvalPath = "input_required" as const;
  readonly waitMs = { secrets: SECRET_WAIT_MODERN_MS, urls: SECRET_WAIT_MODERN_MS };
  readonly #call: RoundCall;
  /** Answers known this round (sealed earlier ones + this round's responses to asked keys). */
  readonly #answers: Record<string, WireElicitResult> = {};
  readonly #pending = new Map<string, InputRequest>();
  /** The operator's approval of an earlier round (sealed), the client's answer to its page, and this round's. */
  #operator: { approvalId: string; answer: "accept" | "decline" | "cancel" | undefined } | undefined;
  #operatorAsked: string | undefined;

  /** Fills the answers from the verified state and the responses to what that state asked. */
  constructor(call: RoundCall) {
    this.#call = call;
    const { exchange, agent, wireName, input } = call;
    const state = exchange.requestState<RoundState>();
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
    const responses = exchange.inputResponses ?? {};
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

  /** A question: its answer when this round has one, else it is asked and the round ends. */
  #answer(key: string, request: InputRequest): WireElicitResult {
    const answer = this.#answers[key];
    if (answer !== undefined) return answer;
    this.#pending.set(key, request);
    throw inputRequiredSignal();
  }

  async form(key: string, message: string, schema: unknown): Promise<WireElicitResult> {
    return this.#answer(key, inputRequired.elicit({ message, requestedSchema: schema as never }));
  }

  async url(key: string, message: string, url: string): Promise<AskedUrl> {
    return { answer: this.#answer(key, inputRequired.elicitUrl({ message, url })) };
  }

  operatorRound(): OperatorRound {
    return {
      earlier: this.#operator,
      waitMs: this.#call.approvalWaitMs ?? APPROVAL_WAIT_MODERN_MS,
      ask: (approvalId, toolName) => this.#askOperator(approvalId, toolName),
    };
  }

  /** The approval page is offered by a round of its own (operatorRound), not while the call waits. */
  offerApprovalPage(): undefined {
    return undefined;
  }

  /** This round ends with the client sent to the approval page (the retry carries the id). */
  #askOperator(approvalId: string, toolName: string): void {
    this.#operatorAsked = approvalId;
    this.#pending.set(
      OPERATOR_KEY,
      inputRequired.elicitUrl({
        message: `An operator must approve ${this.#call.wireName} (${toolName}) for agent ${this.#call.agent}; the approval page is open to the agent's operators. The call goes on once it is decided.`,
        url: `${this.#call.pagesOrigin}/approve/${approvalId}`,
      }),
    );
  }

  finish(errorCode: string | undefined): InputRequiredResult | undefined {
    if (errorCode !== "AIRLOCK_INPUT_REQUIRED" || this.#pending.size === 0) return undefined;
    const { host, agent, wireName, input } = this.#call;
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
}
