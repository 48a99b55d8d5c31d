// The operator's approval as a 2026-07-28 round trip (called from approvalStep when the caller
// offers an OperatorRound): the first round opens an approval no call waits on (listed, on the
// console and the approval page, decided like any) and ends the round with a URL elicitation
// to its page; each retry carries the approval's id and reads the decision from the registry,
// which keeps it in the store on a cluster, so the retry may reach any replica:
// approved → the call goes on; denied → a refusal carrying the operator's reason; still pending
// → it waits in the request up to `waitMs`, then asks again (same approval, same page).
// Invariants: an approval's decision is taken once (a replayed round state finds nothing and
// opens a new approval: one approval runs one call); an approval is honoured only for the agent
// and tool it was opened for; a client that declines or dismisses the page withdraws a still
// pending approval; every outcome is audited (tool row "approval", by "operator", path
// "input_required"; the operator's own decision is the admin row approval.decide).

import type { CallOptions } from "../../contracts/host.ts";
import type { ApprovalDecision } from "../../state/cluster/approval-registry.ts";
import type { PeopleDeps, StepCall, StepStop as Stop } from "./step-types.ts";
import type { OperatorRound } from "./types.ts";

export type RoundCall = Omit<StepCall, "callId">;

/** Writes the call's tool row "approval" (pipeline-steps.ts owns its shape). */
export type RecordApproval = (fields: {
  allowed: boolean;
  error: string | null;
  details: Record<string, unknown>;
}) => Promise<void>;

const POLL_MS = 500;
const INPUT_REQUIRED: Stop = { code: "AIRLOCK_INPUT_REQUIRED", message: "the client must answer first" };
export const WITHDRAWN_REASON = "dismissed at the client";

/** The decision once there is one; null when still pending at the deadline; "gone" when it vanished. */
async function awaitDecision(
  deps: PeopleDeps,
  id: string,
  signal: AbortSignal | undefined,
  waitMs: number,
): Promise<ApprovalDecision | null | "gone"> {
  const deadline = Date.now() + waitMs;
  while (true) {
    const opened = await deps.approvals.take(id);
    if (opened === null) return "gone";
    if (opened.decision !== null) return opened.decision;
    if (signal?.aborted === true || Date.now() >= deadline) return null;
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", done);
        resolve();
      };
      const timer = setTimeout(done, Math.min(POLL_MS, Math.max(0, deadline - Date.now())));
      signal?.addEventListener("abort", done, { once: true });
    });
  }
}

/** A client that would not open the page withdraws the approval, unless it was decided meanwhile. */
async function withdraw(deps: PeopleDeps, id: string): Promise<ApprovalDecision | "withdrawn" | "gone"> {
  const withdrawn = await deps.approvals.decide(id, { approve: false, reason: WITHDRAWN_REASON }).then(
    () => true,
    () => false, // decided (or expired) meanwhile: that decision stands
  );
  const opened = await deps.approvals.take(id);
  return withdrawn ? "withdrawn" : (opened?.decision ?? "gone");
}

export async function operatorRoundStep(
  deps: PeopleDeps,
  call: RoundCall,
  options: CallOptions,
  round: OperatorRound,
  record: RecordApproval,
): Promise<"done" | Stop> {
  const { run, toolName } = call;
  const earlier = round.earlier;
  if (earlier !== undefined) {
    const id = earlier.approvalId;
    const opened = await deps.approvals.take(id);
    if (opened !== null && opened.approval.agent === run.agent && opened.approval.toolName === toolName) {
      let decision: ApprovalDecision | null | "withdrawn" | "gone" = opened.decision;
      const dismissed = earlier.answer === "decline" || earlier.answer === "cancel";
      if (decision === null) {
        decision = dismissed
          ? await withdraw(deps, id)
          : await awaitDecision(deps, id, options.signal, round.waitMs);
      }
      if (decision === null) {
        round.ask(id, toolName);
        return INPUT_REQUIRED;
      }
      if (decision !== "gone") return settle(decision, id, record);
    }
    // Unknown, expired or already used (a replayed round): the operator decides anew.
  }
  const approval = await deps.approvals.open(
    { runId: run.id, agent: run.agent, toolName, input: call.input },
    (a) => {
      const presentation = call.entry.tool.presentation;
      const event = { approvalId: a.id, runId: run.id, agent: run.agent, toolName, input: a.input };
      deps.events.emit(
        "permission.required",
        presentation === undefined ? event : { ...event, presentation },
      );
    },
  );
  round.ask(approval.id, toolName);
  return INPUT_REQUIRED;
}

async function settle(
  decision: ApprovalDecision | "withdrawn",
  id: string,
  record: RecordApproval,
): Promise<"done" | Stop> {
  const details = { mode: "operator", by: "operator", path: "input_required", approvalId: id };
  if (decision !== "withdrawn" && decision.approved) {
    await record({ allowed: true, error: null, details: { ...details, approved: true } });
    return "done";
  }
  const withdrawn = decision === "withdrawn";
  const reason = withdrawn
    ? WITHDRAWN_REASON
    : "cancelled" in decision
      ? "the call was cancelled"
      : decision.reason;
  const code = withdrawn ? "AIRLOCK_APPROVAL_DISMISSED" : "AIRLOCK_APPROVAL_DENIED";
  await record({
    allowed: false,
    error: code,
    details: { ...details, approved: false, reason, ...(withdrawn ? { by: "client" } : {}) },
  });
  return withdrawn
    ? { code, message: "The call was not approved: the person at the client dismissed the approval page." }
    : { code, message: `The call was not approved: ${reason}` };
}
