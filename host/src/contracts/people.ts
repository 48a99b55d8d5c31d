// People in the loop, as the host's API and its callers see them: an agent's policy (who
// approves which tool, which missing secrets are askable), the approvals waiting for an
// operator, and what a caller (the MCP server) offers a tool call so a person can take part in
// it: the approval at the client, ctx.elicit, missing secrets entered on the host's page. The
// pipeline asks through these; a caller that offers none keeps the operator's path.
// Invariants: every answer reaching the pipeline is plain data the host validated; a channel
// never hangs past the call's signal; "input required" (the 2026-07-28 round trip) is a
// thrown AIRLOCK_INPUT_REQUIRED that ends the call's round, never a result.
import type { ElicitRequest, ElicitResult } from "@airlock/sdk";

/** Who decides a call to a tool that is not read-only. */
export type ApprovalMode = "operator" | "client" | "auto";

/** An agent's people-in-the-loop policy (operator-set; default: operator decides, nothing askable). */
export interface PeoplePolicy {
  /** Default approval mode of the agent's tools that are not read-only. */
  approval: ApprovalMode;
  /**
   * The mode of its destructive tools (as derived from their grants, or claimed by a tool that
   * declares none: docs/behaviour.md); null: as `approval`. A per-tool override wins over it.
   */
  destructive: ApprovalMode | null;
  /** Per tool (`ns:tool`) overrides. */
  tools: Record<string, ApprovalMode>;
  /** Secret keys the person at the client may enter on the host's page when they are missing. */
  askSecrets: string[];
}

/** A change to a policy: fields left out keep their value; a tool mapped to null loses its override. */
export interface PolicyPatch {
  approval?: ApprovalMode;
  /** null: destructive tools follow `approval` again. */
  destructive?: ApprovalMode | null;
  tools?: Record<string, ApprovalMode | null>;
  askSecrets?: string[];
}

/** A call waiting for an operator's decision (any replica sharing the store). */
export interface PendingApproval {
  id: string;
  runId: string;
  agent: string;
  toolName: string;
  input: Record<string, unknown>;
  requestedAt: string;
}

export interface ApprovalQuestion {
  agent: string;
  toolName: string;
  title: string | undefined;
  input: Record<string, unknown>;
}

/** The person's answer to an approval at the client, and the path it came by. */
export type ClientDecision =
  | { approved: true; path: ApprovalPath }
  | { approved: false; reason: string; dismissed: boolean; path: ApprovalPath };

export type ApprovalPath = "elicitation" | "input_required";

export interface SecretQuestion {
  agent: string;
  toolName: string;
  keys: string[];
}

/** Whether the missing secrets are set now (the call proceeds), or why not. */
export type SecretOutcome = "supplied" | "declined" | "unsupported" | "timeout";

/** A page the person at the client should open (an OAuth connect link): the call waits until it served its purpose. */
export interface UrlQuestion {
  /** Shown with the link. */
  message: string;
  url: string;
  /** Whether what the page is for is done (re-checked while the call waits after the person opened it). */
  done(): Promise<boolean>;
}

/** done: the page served its purpose; declined: the person would not open it; timeout: not done in time. */
export type UrlOutcome = "done" | "declined" | "timeout";

/**
 * 2026-07-28, the operator decides (the client declared URL elicitation and the host's pages are
 * reachable): the call does not wait in its request. Its round ends with a URL elicitation to the
 * approval page; the retry carries the approval's id (sealed) and reads the decision.
 */
export interface OperatorRound {
  /** What an earlier round of this call opened, and the client's answer to it; undefined on the first round. */
  earlier: { approvalId: string; answer: "accept" | "decline" | "cancel" | undefined } | undefined;
  /** How long the retried request waits for the decision before asking again (ms). */
  waitMs: number;
  /** Ends this round: asks the client to open the approval page of `approvalId`. */
  ask(approvalId: string, toolName: string): void;
}

export interface PeopleChannel {
  /** Form-mode approval at the client; undefined when this caller cannot ask (the operator decides). */
  approve?(question: ApprovalQuestion, signal: AbortSignal | undefined): Promise<ClientDecision | undefined>;
  /** ctx.elicit of the running tool (schema already checked and stripped of host-only keys). */
  elicit?(request: ElicitRequest, signal: AbortSignal): Promise<ElicitResult>;
  /** Points the person at the host's secret page and waits until the keys are set. */
  supplySecrets?(question: SecretQuestion, signal: AbortSignal | undefined): Promise<SecretOutcome>;
  /** URL-mode elicitation of any host page (the client declared URL support); undefined: cannot ask. */
  openUrl?(question: UrlQuestion, signal: AbortSignal | undefined): Promise<UrlOutcome>;
  /** 2026-07-28 operator approvals as a round trip; undefined: the call waits for the operator in-request. */
  operatorRound?: OperatorRound;
}

export type { ElicitRequest, ElicitResult };
