// Pending approvals for calls to tools that are not read-only. `request` registers a
// PendingApproval and resolves with the decision; `decide` settles one by id. Invariants: a
// pending approval is settled exactly once (decision, the call's signal aborting, or the host
// closing, which denies everything still pending); a settled id is gone from `list`.
// This is the one-process registry; replicas sharing a PostgreSQL store use the store-backed
// one (cluster/approvals.ts), which keeps this interface.
import { randomUUID } from "node:crypto";
import { AirlockError } from "@airlock/sdk";
import type { PendingApproval } from "../host-types.ts";
import { PIPELINE_ERRORS } from "./errors.ts";

export type ApprovalDecision =
  | { approved: true }
  | { approved: false; reason: string }
  | { approved: false; cancelled: true };

export interface ApprovalRegistry {
  /** Registers a pending approval; `onPending` runs once it is listable (emit the event there). */
  request(
    fields: Omit<PendingApproval, "id" | "requestedAt">,
    signal: AbortSignal | undefined,
    onPending: (approval: PendingApproval) => void,
  ): Promise<ApprovalDecision>;
  /** Settles a pending approval; answers what it was. AIRLOCK_APPROVAL_NOT_FOUND when unknown or settled. */
  decide(id: string, decision: { approve: boolean; reason?: string }): Promise<PendingApproval>;
  list(agent?: string): Promise<PendingApproval[]>;
  /** Denies every pending approval of this process (host shutdown). */
  denyAll(reason: string): Promise<void>;
}

export const DEFAULT_DENIAL = "the operator denied this call";

export function approvalNotFound(id: string): AirlockError {
  return new AirlockError("AIRLOCK_APPROVAL_NOT_FOUND", `no pending approval "${id}"`, {
    status: PIPELINE_ERRORS.AIRLOCK_APPROVAL_NOT_FOUND.status,
  });
}

interface Entry {
  approval: PendingApproval;
  settle: (decision: ApprovalDecision) => void;
}

export function createApprovalRegistry(): ApprovalRegistry {
  const pending = new Map<string, Entry>();

  return {
    request(fields, signal, onPending) {
      return new Promise<ApprovalDecision>((resolve) => {
        if (signal?.aborted) {
          resolve({ approved: false, cancelled: true });
          return;
        }
        const approval: PendingApproval = {
          ...fields,
          id: `apr_${randomUUID()}`,
          requestedAt: new Date().toISOString(),
        };
        const onAbort = () => settle({ approved: false, cancelled: true });
        const settle = (decision: ApprovalDecision) => {
          if (!pending.delete(approval.id)) return;
          signal?.removeEventListener("abort", onAbort);
          resolve(decision);
        };
        pending.set(approval.id, { approval, settle });
        signal?.addEventListener("abort", onAbort, { once: true });
        onPending({ ...approval, input: structuredClone(approval.input) });
      });
    },
    async decide(id, decision) {
      const entry = pending.get(id);
      if (entry === undefined) throw approvalNotFound(id);
      if (decision.approve === true) entry.settle({ approved: true });
      else entry.settle({ approved: false, reason: decision.reason ?? DEFAULT_DENIAL });
      return entry.approval;
    },
    async list(agent) {
      return [...pending.values()]
        .map((e) => e.approval)
        .filter((a) => agent === undefined || a.agent === agent)
        .map((a) => ({ ...a, input: structuredClone(a.input) }));
    },
    async denyAll(reason) {
      for (const entry of [...pending.values()]) entry.settle({ approved: false, reason });
    },
  };
}
