// The operator's approval as a wait (called from the pipeline's approval stage when the people
// step answered "operator" and the caller offers no 2026-07-28 round): the call registers a
// pending approval, announces it (permission.required, with the tool's presentation) once it is
// listable, and waits for the operator's decision in the approval registry.
// Invariants: the call's signal cancels the wait (AIRLOCK_TOOL_CANCELLED); a denial (or the host
// closing, which denies everything pending) is AIRLOCK_APPROVAL_DENIED with the reason; the
// operator's decision is audited by the operation that took it (approval.decide), not here.
import type { Presentation } from "@airlock/sdk/manifest";
import type { CallOptions } from "../../contracts/host.ts";
import type { PeopleDeps, StepRun, StepStop } from "./step-types.ts";

export async function operatorWaitStep(
  deps: PeopleDeps,
  call: { run: StepRun; toolName: string; input: Record<string, unknown> },
  options: CallOptions,
  presentation: Presentation | undefined,
): Promise<"done" | StepStop> {
  const { run, toolName } = call;
  const decision = await deps.approvals.request(
    { runId: run.id, agent: run.agent, toolName, input: call.input },
    options.signal,
    (approval) => {
      const event = {
        approvalId: approval.id,
        runId: run.id,
        agent: run.agent,
        toolName,
        input: approval.input,
      };
      deps.events.emit(
        "permission.required",
        presentation === undefined ? event : { ...event, presentation },
      );
    },
  );
  if (decision.approved) return "done";
  if ("cancelled" in decision)
    return { code: "AIRLOCK_TOOL_CANCELLED", message: "The call was cancelled while awaiting approval." };
  return { code: "AIRLOCK_APPROVAL_DENIED", message: `The call was not approved: ${decision.reason}` };
}
