// Pending approvals for calls to tools that are not read-only. `request` registers a
// PendingApproval and resolves with the decision; `decide` settles one by id. Invariants: a
// pending approval is settled exactly once (decision, the call's signal aborting, or the host
// closing, which denies everything still pending); a settled id is gone from `list`.
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
  decide(id: string, decision: { approve: boolean; reason?: string }): void;
  list(agent?: string): PendingApproval[];
  /** Denies every pending approval (host shutdown). */
  denyAll(reason: string): void;
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
    decide(id, decision) {
      const entry = pending.get(id);
      if (entry === undefined) {
        throw new AirlockError("AIRLOCK_APPROVAL_NOT_FOUND", `no pending approval "${id}"`, {
          status: PIPELINE_ERRORS.AIRLOCK_APPROVAL_NOT_FOUND.status,
        });
      }
      if (decision.approve === true) entry.settle({ approved: true });
      else entry.settle({ approved: false, reason: decision.reason ?? "the operator denied this call" });
    },
    list(agent) {
      return [...pending.values()]
        .map((e) => e.approval)
        .filter((a) => agent === undefined || a.agent === agent)
        .map((a) => ({ ...a, input: structuredClone(a.input) }));
    },
    denyAll(reason) {
      for (const entry of [...pending.values()]) entry.settle({ approved: false, reason });
    },
  };
}
