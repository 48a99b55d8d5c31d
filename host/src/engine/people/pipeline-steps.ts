// The pipeline's people-in-the-loop steps (called from the secrets and approval stages,
// pipeline/stages/, and from run.ts):
// - approval: the agent's policy says who decides a tool that is not read-only: `auto` runs it,
//   `client` asks the person at the client through the call's channel (falling back to the
//   operator when the caller cannot ask), `operator` leaves it to the approval registry — as a
//   2026-07-28 round trip to the approval page when the channel offers one (operator-round.ts);
// - missing secrets: when every missing key is one the operator lets the person enter, the
//   channel points the person at the host's page and the call goes on once they are set.
// Invariants: the default (no policy, no channel) is exactly the operator path; every decision
// made here is audited (kind "tool", action "approval": mode, who decided, the path); a secret
// request is audited with its keys, never a value; nothing here proceeds on an answer the
// channel did not give (a missing or failed answer is a refusal or the operator's path).
import { hasCode } from "@airlock/sdk";
import type { CallOptions } from "../../contracts/host.ts";
import type { Store } from "../../state/store/types.ts";
import { missingSecrets } from "../catalogue/agent-tools.ts";
import { isDestructive, isReadOnly } from "../catalogue/served-tool.ts";
import { operatorRoundStep } from "./operator-round.ts";
import { approvalModeOf, readPolicy } from "./policy.ts";
import type { PeopleDeps, StepCall, StepStop as Stop } from "./step-types.ts";

/**
 * `operator`: the registry decides (today's path); `done`: a person approved (the client, or
 * the operator in a round trip); `unasked`: nothing to approve, or the policy approves it.
 */
export type ApprovalStep = "operator" | "done" | "unasked" | Stop;

function audit(
  deps: PeopleDeps,
  call: StepCall,
  action: string,
  fields: { allowed: boolean; error: string | null; details: Record<string, unknown> },
) {
  return deps.audit({
    agent: call.run.agent,
    plugin: call.entry.namespace,
    tool: call.entry.tool.name,
    conversationId: call.run.conversationId,
    kind: "tool",
    action,
    allowed: fields.allowed,
    success: fields.allowed,
    error: fields.error,
    durationMs: null,
    details: { runId: call.run.id, callId: call.callId, ...fields.details },
  });
}

export async function approvalStep(
  deps: PeopleDeps,
  call: StepCall,
  options: CallOptions,
): Promise<ApprovalStep> {
  const { entry, run } = call;
  // read-only as derived from the tool's grants when it declares them (served-tool.ts), else as claimed
  if (isReadOnly(entry.tool) || run.autoApprove || deps.autoApprove) return "unasked";
  const mode = approvalModeOf(await readPolicy(deps.store, run.agent), entry.id, isDestructive(entry.tool));
  if (mode === "auto") {
    await audit(deps, call, "approval", {
      allowed: true,
      error: null,
      details: { mode, by: "policy", path: "policy", approved: true },
    });
    return "unasked";
  }
  const ask = options.people?.approve;
  if (mode === "operator" || ask === undefined) {
    // 2026-07-28 with URL elicitation: a round trip to the approval page instead of a wait.
    const round = options.people?.operatorRound;
    if (round === undefined) return "operator";
    return operatorRoundStep(deps, call, options, round, (fields) => audit(deps, call, "approval", fields));
  }
  let decision: Awaited<ReturnType<NonNullable<typeof ask>>>;
  try {
    decision = await ask(
      {
        agent: run.agent,
        toolName: call.toolName,
        title: entry.tool.annotations.title,
        input: structuredClone(call.input),
      },
      options.signal,
    );
  } catch (error) {
    if (hasCode(error, "AIRLOCK_INPUT_REQUIRED"))
      return { code: "AIRLOCK_INPUT_REQUIRED", message: "the client must answer first" };
    if (options.signal?.aborted === true) {
      return { code: "AIRLOCK_TOOL_CANCELLED", message: "The call was cancelled while awaiting approval." };
    }
    deps.report(`approval at the client for ${call.toolName}`, error);
    decision = undefined; // the client could not be asked after all: the operator decides
  }
  if (decision === undefined) return "operator";
  const details = { mode, by: "client", path: decision.path, approved: decision.approved };
  if (decision.approved) {
    await audit(deps, call, "approval", { allowed: true, error: null, details });
    return "done";
  }
  const code = decision.dismissed ? "AIRLOCK_APPROVAL_DISMISSED" : "AIRLOCK_APPROVAL_DENIED";
  await audit(deps, call, "approval", {
    allowed: false,
    error: code,
    details: { ...details, reason: decision.reason },
  });
  return decision.dismissed
    ? { code, message: "The call was not approved: the person at the client dismissed the request." }
    : { code, message: `The call was not approved: ${decision.reason}` };
}

/**
 * Whether the missing secrets of a call are set now: true only when the operator lets the person
 * enter every one of them, the caller could point them at the host's page, and they are set.
 */
export async function secretsStep(
  deps: PeopleDeps,
  call: StepCall,
  missing: string[],
  options: CallOptions,
): Promise<boolean | Stop> {
  const supply = options.people?.supplySecrets;
  if (supply === undefined) return false;
  const policy = await readPolicy(deps.store, call.run.agent);
  if (!missing.every((key) => policy.askSecrets.includes(key))) return false;
  let outcome: Awaited<ReturnType<typeof supply>>;
  try {
    outcome = await supply(
      { agent: call.run.agent, toolName: call.toolName, keys: [...missing] },
      options.signal,
    );
  } catch (error) {
    if (hasCode(error, "AIRLOCK_INPUT_REQUIRED"))
      return { code: "AIRLOCK_INPUT_REQUIRED", message: "the client must answer first" };
    deps.report(`secret request for ${call.toolName}`, error);
    outcome = "unsupported";
  }
  const state = outcome === "supplied" ? await deps.agentStates.load(call.run.agent) : null;
  const set = state !== null && missingSecrets(call.entry, state.secretKeys).length === 0;
  await audit(deps, call, "secret.request", {
    allowed: set,
    error: set ? null : "AIRLOCK_TOOL_SECRET_MISSING",
    details: {
      keys: [...missing],
      outcome: set ? "supplied" : outcome === "supplied" ? "still missing" : outcome,
    },
  });
  return set;
}

/** Keys the person may enter for this agent (read once per run start, only when some are missing). */
export async function askableSecrets(store: Store, agent: string): Promise<ReadonlySet<string>> {
  return new Set((await readPolicy(store, agent)).askSecrets);
}
