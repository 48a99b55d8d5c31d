// The host's people-in-the-loop operations: pending approvals (of every replica), deciding one,
// and an agent's people policy (who approves which tool, which missing secrets are askable).
// Invariants: a decision is audited (approval.decide) succeeded or failed, naming who decided and
// through which surface, never the call's input; a policy change is checked whole
// (AIRLOCK_POLICY_INVALID) before the agent is looked up, audited (people.policy), and announced
// (reason "secrets") when it changes the askable secrets.
import type { AirlockHost } from "../../contracts/host.ts";
import type { ApprovalRegistry } from "../../state/cluster/approval-registry.ts";
import { audited } from "../catalogue/admin-audit.ts";
import { requireAgent } from "../catalogue/agent-tools.ts";
import { checkPatch, readPolicy, writePolicy } from "../people/policy.ts";
import type { AdminContext } from "./context.ts";

export type PeopleOps = Pick<
  AirlockHost,
  "listApprovals" | "decideApproval" | "getPeoplePolicy" | "setPeoplePolicy"
>;

export function createPeopleOps(
  ctx: Pick<AdminContext, "store" | "admin" | "announce">,
  approvals: Pick<ApprovalRegistry, "list" | "decide">,
): PeopleOps {
  const { store, admin, announce } = ctx;
  return {
    listApprovals: (agent) => approvals.list(agent),
    async decideApproval(id, decision) {
      const fields = {
        agent: null,
        details: {
          approvalId: id,
          toolName: null,
          approve: decision.approve === true,
          by: "operator",
          via: decision.via ?? "admin API",
        },
      };
      const { via: _via, ...settled } = decision;
      const decided = await approvals.decide(id, settled).catch(async (error: unknown) => {
        await admin("approval.decide", fields, error);
        throw error;
      });
      await admin("approval.decide", {
        agent: decided.agent,
        details: { ...fields.details, toolName: decided.toolName },
      });
    },
    async getPeoplePolicy(agent) {
      await requireAgent(store, agent);
      return readPolicy(store, agent);
    },
    async setPeoplePolicy(agent, patch) {
      const checked = checkPatch(patch);
      await requireAgent(store, agent);
      const policy = await audited(admin, "people.policy", { agent, details: { ...checked } }, () =>
        writePolicy(store, agent, checked),
      );
      // Askable secrets change what the agent is served (a tool missing only those is listed).
      if (checked.askSecrets !== undefined) announce(agent, "secrets");
      return policy;
    },
  };
}
