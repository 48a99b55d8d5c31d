// How a 2025-era tools/call asks people: elicitation requests pushed on the call's own stream
// (`elicitation/create`: form mode for approvals and ctx.elicit, URL mode for the host's pages),
// answered while the call waits; a URL elicitation that served its purpose is followed by the
// 2025-11-25 elicitation-complete notification. When the operator decides, a client that opens
// URLs is pointed at the approval page (its answer changes nothing: the operator decides).
// Invariants: every request is related to the call (relatedRequestId) and bounded by the call's
// signal and ASK_TIMEOUT_MS; a completion notification is best effort (a failure is logged,
// never fails the call); nothing here outlives the call.
import { randomUUID } from "node:crypto";
import type { ServerContext, ElicitResult as WireElicitResult } from "@modelcontextprotocol/server";
import type { AskedUrl, EraRound, RoundCall } from "../era.ts";

/** How long a 2025 approval or ctx.elicit question waits for the client (the call's signal ends it sooner). */
export const ASK_TIMEOUT_MS = 10 * 60 * 1000;
/** How long a call waits for the person to enter a secret after the client opened the page. */
export const SECRET_WAIT_MS = 5 * 60 * 1000;
/** How long a call waits for a page (a connect link) to serve its purpose after the person opened it. */
export const URL_WAIT_MS = 5 * 60 * 1000;

export class LegacyRound implements EraRound {
  readonly approvalPath = "elicitation" as const;
  readonly waitMs = { secrets: SECRET_WAIT_MS, urls: URL_WAIT_MS };
  readonly #call: RoundCall;

  constructor(call: RoundCall) {
    this.#call = call;
  }

  async #push(
    params: Parameters<ServerContext["mcpReq"]["elicitInput"]>[0],
    signal: AbortSignal | undefined,
  ): Promise<WireElicitResult> {
    return this.#call.exchange.elicitInput(params, {
      timeout: ASK_TIMEOUT_MS,
      ...(signal === undefined ? {} : { signal }),
    });
  }

  form(_key: string, message: string, schema: unknown, signal: AbortSignal | undefined) {
    return this.#push({ mode: "form", message, requestedSchema: schema as never }, signal);
  }

  async url(_key: string, message: string, url: string, signal: AbortSignal | undefined): Promise<AskedUrl> {
    const elicitationId = randomUUID();
    const answer = await this.#push({ mode: "url", message, url, elicitationId }, signal);
    return { answer, complete: () => this.#completeUrl(elicitationId) };
  }

  operatorRound(): undefined {
    return undefined;
  }

  offerApprovalPage(approvalId: string, toolName: string): () => Promise<void> {
    const elicitationId = randomUUID();
    const url = `${this.#call.pagesOrigin}/approve/${approvalId}`;
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
    return () => this.#completeUrl(elicitationId);
  }

  finish(): undefined {
    return undefined;
  }

  /** 2025-11-25: tells the client a URL elicitation is done (best effort). */
  async #completeUrl(elicitationId: string): Promise<void> {
    const { exchange, log } = this.#call;
    try {
      await exchange.elicitationComplete(elicitationId);
    } catch (error) {
      log(error);
    }
  }
}
