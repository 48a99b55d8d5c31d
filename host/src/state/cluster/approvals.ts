// Approvals shared by every replica of a PostgreSQL store: the row is the approval. Requested
// on the replica whose call waits; listed and decided on any replica; the decision reaches the
// waiting replica by a wake-up (kind "approval"), which re-reads the row.
// Invariants: a decision is one conditional UPDATE (exactly one of racing deciders wins, the
// others get AIRLOCK_APPROVAL_NOT_FOUND); a waiting call is settled only from its row's final
// status; a call whose approval could not be recorded is denied with that reason, never left
// waiting; every live replica abandons (with a reason naming the replica) the pending approvals
// of a replica that stopped or stopped beating, so nothing stays pending forever; after the
// listener reconnects, and on every heartbeat while calls wait, the waiting rows are re-read.
// An opened approval (no call waits; a 2026-07-28 retry reads it on any replica) is a row of
// replica OPENED_REPLICA, which no replica's sweep abandons: it expires by its age instead, and
// `take` deletes it once decided (one conditional DELETE: one taker wins).
import type { PendingApproval } from "../../contracts/host.ts";
import type { ApprovalRow, ClusterStore } from "../store/cluster-types.ts";
import {
  type ApprovalDecision,
  type ApprovalRegistry,
  approvalNotFound,
  DEFAULT_DENIAL,
  EXPIRED_REASON,
  newApproval,
  openedExpired,
} from "./approval-registry.ts";

export interface SharedApprovalRegistry extends ApprovalRegistry {
  /** A wake-up named this approval: re-read its row and settle the waiting call if decided. */
  onSignal(id: string): void;
  /** Re-reads every approval a call of this replica waits for. */
  resync(): Promise<void>;
  /** Abandons orphaned approvals of dead replicas (every replica runs it on its heartbeat). */
  sweep(staleMs: number): Promise<string[]>;
}

export interface SharedApprovalOptions {
  cluster: ClusterStore;
  replica: string;
  /** Wakes the replica holding the call. */
  publish(id: string): void;
  report(what: string, error: unknown): void;
}

/** The replica column of an opened approval: no replica has this id, so none abandons it. */
export const OPENED_REPLICA = "(opened)";

const toPending = (row: ApprovalRow): PendingApproval => ({
  id: row.id,
  runId: row.runId,
  agent: row.agent,
  toolName: row.toolName,
  input: structuredClone(row.input),
  requestedAt: row.requestedAt,
});

function decisionOf(row: ApprovalRow): ApprovalDecision | null {
  switch (row.status) {
    case "pending":
      return null;
    case "approved":
      return { approved: true };
    case "cancelled":
      return { approved: false, cancelled: true };
    default:
      return { approved: false, reason: row.reason ?? DEFAULT_DENIAL };
  }
}

export function createSharedApprovalRegistry(options: SharedApprovalOptions): SharedApprovalRegistry {
  const { cluster, replica, report } = options;
  const waiting = new Map<string, (decision: ApprovalDecision) => void>();

  const settleFromRow = (row: ApprovalRow | null) => {
    if (row === null) return;
    const decision = decisionOf(row);
    if (decision !== null) waiting.get(row.id)?.(decision);
  };
  const reread = async (id: string) => {
    if (!waiting.has(id)) return;
    settleFromRow(await cluster.getApproval(id));
  };

  return {
    request(fields, signal, onPending) {
      return new Promise<ApprovalDecision>((resolve) => {
        if (signal?.aborted) {
          resolve({ approved: false, cancelled: true });
          return;
        }
        const approval = newApproval(fields);
        const onAbort = () => {
          cluster.settleApproval(approval.id, "cancelled", "the call was cancelled").then(
            (row) =>
              settle(
                row === null
                  ? { approved: false, cancelled: true }
                  : (decisionOf(row) ?? { approved: false, cancelled: true }),
              ),
            (error: unknown) => {
              report("approval cancel", error);
              settle({ approved: false, cancelled: true });
            },
          );
        };
        const settle = (decision: ApprovalDecision) => {
          if (!waiting.delete(approval.id)) return;
          signal?.removeEventListener("abort", onAbort);
          resolve(decision);
        };
        waiting.set(approval.id, settle);
        cluster.insertApproval({ ...approval, input: structuredClone(approval.input), replica }).then(
          () => {
            signal?.addEventListener("abort", onAbort, { once: true });
            if (signal?.aborted) onAbort();
            onPending({ ...approval, input: structuredClone(approval.input) });
          },
          (error: unknown) => {
            report("approval request", error);
            settle({ approved: false, reason: "the approval could not be recorded in the store; try again" });
          },
        );
      });
    },
    async decide(id, decision) {
      const approve = decision.approve === true;
      const row = await cluster.settleApproval(
        id,
        approve ? "approved" : "denied",
        approve ? null : (decision.reason ?? DEFAULT_DENIAL),
      );
      if (row === null) throw approvalNotFound(id);
      if (row.replica === replica) settleFromRow(row);
      else options.publish(id);
      return toPending(row);
    },
    async list(agent) {
      const rows = await cluster.listPendingApprovals(agent);
      const expired = rows.filter((r) => r.replica === OPENED_REPLICA && openedExpired(toPending(r)));
      for (const row of expired) {
        cluster
          .settleApproval(row.id, "abandoned", EXPIRED_REASON)
          .catch((error: unknown) => report("opened approval expiry", error));
      }
      return rows.filter((r) => !expired.includes(r)).map(toPending);
    },
    async open(fields, onPending) {
      const approval = newApproval(fields);
      await cluster.insertApproval({
        ...approval,
        input: structuredClone(approval.input),
        replica: OPENED_REPLICA,
      });
      onPending({ ...approval, input: structuredClone(approval.input) });
      return approval;
    },
    async take(id) {
      const row = await cluster.getApproval(id);
      if (row === null || row.replica !== OPENED_REPLICA) return null;
      if (row.status === "pending") {
        if (!openedExpired(toPending(row))) return { approval: toPending(row), decision: null };
        await cluster.settleApproval(id, "abandoned", EXPIRED_REASON);
        await cluster.deleteSettledApproval(id);
        return null;
      }
      const taken = await cluster.deleteSettledApproval(id);
      return taken === null ? null : { approval: toPending(taken), decision: decisionOf(taken) };
    },
    async denyAll(reason) {
      await Promise.all(
        [...waiting.keys()].map(async (id) => {
          const row = await cluster.settleApproval(id, "denied", reason).catch((error: unknown) => {
            report("approval denial on shutdown", error);
            return null;
          });
          waiting.get(id)?.(
            row === null ? { approved: false, reason } : (decisionOf(row) ?? { approved: false, reason }),
          );
        }),
      );
    },
    onSignal(id) {
      reread(id).catch((error: unknown) => report("approval re-read", error));
    },
    async resync() {
      await Promise.all([...waiting.keys()].map((id) => reread(id)));
    },
    async sweep(staleMs) {
      const ids = await cluster.abandonOrphanedApprovals(staleMs);
      for (const id of ids) options.publish(id);
      return ids;
    },
  };
}
