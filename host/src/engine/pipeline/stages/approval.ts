// Stage "approval": a tool that is not read-only runs only once approved, unless the run or
// the host auto-approves. Who decides is the agent's people policy (engine/people/): the
// policy itself (`auto`), the person at the client through the call's channel (`client`), or
// the operator — as a 2026-07-28 round trip to the approval page when the channel offers one,
// else as a wait on the approval registry (people/operator-wait.ts).
// A call that asked someone (the client's person or the operator) records how long that took
// (call.waitedForApprovalMs, the audit row's details.waitedForApprovalMs: part of its durationMs, not the
// tool's execution time); one nobody was asked about records nothing.
// Invariants: the default (no policy, no channel) is the operator's wait; a denial is
// AIRLOCK_APPROVAL_DENIED (or _DISMISSED at the client), a cancelled wait
// AIRLOCK_TOOL_CANCELLED; the people steps audit each decision they take.
import { operatorWaitStep } from "../../people/operator-wait.ts";
import { approvalStep } from "../../people/pipeline-steps.ts";
import { type CallStage, reached } from "./types.ts";

export const approvalStage: CallStage = {
  name: "approval",
  async enter(call) {
    // A host tool skips this stage (docs/pipeline.md): the skill tools and search_tools are
    // read-only; run_code changes nothing itself, and each of its inner calls is approved.
    if (call.host !== undefined) return undefined;
    const { deps, run, toolName, callId, input, options } = call;
    const entry = reached(call.current, "the catalogue entry");
    const started = performance.now();
    const person = await approvalStep(deps, { run, entry, toolName, callId, input }, options);
    if (person === "unasked") return undefined;
    try {
      if (typeof person === "object") return person;
      if (person === "done") return undefined;
      const waited = await operatorWaitStep(deps, { run, toolName, input }, options, call.presentation);
      return waited === "done" ? undefined : waited;
    } finally {
      // Someone was asked: the audit row tells this wait apart from the tool's own time.
      call.waitedForApprovalMs = Math.round(performance.now() - started);
    }
  },
};
