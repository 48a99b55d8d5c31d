// Approvals shared by every replica of a PostgreSQL store: the row is the approval. Requested
// on the replica whose call waits; listed and decided on any replica; the decision reaches the
// waiting replica by a wake-up (kind "approval"), which re-reads the row.
// Invariants: a decision is one conditional UPDATE from "pending" (exactly one of racing
// deciders wins; the others are refused AIRLOCK_APPROVAL_ALREADY_DECIDED, naming the decision
// that stands); a waiting call is settled only from its row's final status; a call whose
// approval could not be recorded is denied with that reason, never left waiting; every live
// replica abandons (with a reason naming the replica) the pending approvals of a replica that
// stopped or stopped beating, so nothing stays pending forever; after the listener reconnects,
// and on every heartbeat while calls wait, the waiting rows are re-read.
// An approval is a hand-over: a decision for a call that no longer waits (cancelled, timed out,
// its replica stopped or dead) is refused AIRLOCK_APPROVAL_CALL_GONE, never "approved" for a
// call that will not run. The decider refuses outright when the waiting replica is stopped or
// silent for staleMs; otherwise it writes "approving" and the waiting call itself moves the row
// to "approved" when it takes the decision (one conditional UPDATE). Only then is the approval
// answered as done; if the waiting replica goes silent (or does not take it within
// HANDOVER_STALE_FACTOR × staleMs), the decider marks the row "abandoned" (one conditional
// UPDATE from "approving": either the call took it or it is abandoned, never both) and refuses.
// An opened approval (no call waits; a 2026-07-28 retry reads it on any replica) is a row of
// replica OPENED_REPLICA, which no replica's sweep abandons: it expires by its age instead (a
// decision of an expired one is refused CALL_GONE), and `take` deletes it once decided (one
// conditional DELETE: one taker wins).
import type { PendingApproval } from "../../contracts/host.ts";
import type { ApprovalRow, ClusterStore } from "../store/cluster-types.ts";
import {
  type ApprovalDecision,
  type ApprovalRegistry,
  alreadyDecided,
  approvalNotFound,
  CANCELLED_REASON,
  callGone,
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
  /** A replica silent this long is gone (its waiting calls with it). */
  staleMs: number;
  report(what: string, error: unknown): void;
}

/** The replica column of an opened approval: no replica has this id, so none abandons it. */
export const OPENED_REPLICA = "(opened)";

/** How long (× staleMs) an approving decider waits for a live replica's call to take it. */
const HANDOVER_STALE_FACTOR = 3;
const HANDOVER_POLL_MAX_MS = 200;
/** Reads of a row before a decision gives up (each lost race or abandonment makes the row final). */
const DECIDE_ATTEMPTS = 4;

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
    case "approving":
      return null;
    case "approved":
      return { approved: true };
    case "cancelled":
      return { approved: false, cancelled: true };
    default:
      return { approved: false, reason: row.reason ?? DEFAULT_DENIAL };
  }
}

/** Refuses a decision of an approval that is no longer pending, saying what became of it. */
function refuseRow(row: ApprovalRow): never {
  switch (row.status) {
    case "approving":
    case "approved":
      throw alreadyDecided(row.id, true);
    case "denied":
      throw alreadyDecided(row.id, false);
    default:
      throw callGone(row.id, row.reason ?? CANCELLED_REASON);
  }
}

const goneReplica = (replica: string) =>
  `replica ${replica} stopped or stopped answering while the call waited`;

/**
 * The decision half of the registry: one conditional UPDATE from "pending", refusals that say
 * what became of the approval, and the hand-over of an approval to its waiting call.
 */
function createDecide(
  options: SharedApprovalOptions,
  wake: (row: ApprovalRow) => void,
): ApprovalRegistry["decide"] {
  const { cluster } = options;
  /** After "approving": resolves once the call took it ("approved"); refuses once it is gone. */
  const handOver = async (row: ApprovalRow): Promise<ApprovalRow> => {
    wake(row);
    const giveUp = Date.now() + HANDOVER_STALE_FACTOR * options.staleMs;
    for (let delay = 5; ; delay = Math.min(delay * 2, HANDOVER_POLL_MAX_MS)) {
      await new Promise((resolve) => setTimeout(resolve, delay));
      const found = await cluster.getApprovalLiveness(row.id, options.staleMs);
      if (found === null) throw approvalNotFound(row.id);
      if (found.row.status === "approved") return found.row;
      if (found.row.status !== "approving") refuseRow(found.row);
      if (!found.alive || Date.now() > giveUp) {
        const why = found.alive ? "the waiting call did not take the approval" : goneReplica(row.replica);
        // Either the call took it meanwhile (the next read answers "approved") or it is gone.
        await cluster.settleApproval(row.id, "abandoned", why, ["approving"]);
      }
    }
  };
  const decideOnce = async (
    id: string,
    approve: boolean,
    reason: string | undefined,
  ): Promise<ApprovalRow | null> => {
    const found = await cluster.getApprovalLiveness(id, options.staleMs);
    if (found === null) throw approvalNotFound(id);
    const { row, alive } = found;
    if (row.status !== "pending") refuseRow(row);
    const opened = row.replica === OPENED_REPLICA;
    if (opened ? openedExpired(toPending(row)) : !alive) {
      await cluster.settleApproval(id, "abandoned", opened ? EXPIRED_REASON : goneReplica(row.replica), [
        "pending",
      ]);
      return null; // the next read refuses it (or names whoever settled it first)
    }
    const status = !approve ? "denied" : opened ? "approved" : "approving";
    const settled = await cluster.settleApproval(id, status, approve ? null : (reason ?? DEFAULT_DENIAL), [
      "pending",
    ]);
    if (settled === null) return null; // lost a race: the next read names the winner
    if (status === "approving") return handOver(settled);
    wake(settled);
    return settled;
  };

  return async (id, decision) => {
    for (let attempt = 0; attempt < DECIDE_ATTEMPTS; attempt++) {
      const row = await decideOnce(id, decision.approve === true, decision.reason);
      if (row !== null) return toPending(row);
    }
    const row = await cluster.getApproval(id);
    if (row === null) throw approvalNotFound(id);
    refuseRow(row.status === "pending" ? { ...row, status: "abandoned", reason: "it kept changing" } : row);
  };
}

export function createSharedApprovalRegistry(options: SharedApprovalOptions): SharedApprovalRegistry {
  const { cluster, replica, report } = options;
  const waiting = new Map<string, (decision: ApprovalDecision) => void>();

  const settleFromRow = (row: ApprovalRow | null) => {
    if (row === null) return;
    if (row.status === "approving") {
      if (waiting.has(row.id)) claim(row.id);
      return;
    }
    const decision = decisionOf(row);
    if (decision !== null) waiting.get(row.id)?.(decision);
  };
  const reread = async (id: string) => {
    if (!waiting.has(id)) return;
    settleFromRow(await cluster.getApproval(id));
  };
  /** The waiting call takes an approval: "approving" → "approved", or whatever it became instead. */
  const claim = (id: string) => {
    cluster.settleApproval(id, "approved", null, ["approving"]).then(
      (row) => (row === null ? reread(id) : waiting.get(id)?.({ approved: true })),
      // Still "approving": the next heartbeat's resync tries again.
      (error: unknown) => report("approval claim", error),
    );
  };
  /** Wakes the call waiting for `row` (here, or on its replica). */
  const wake = (row: ApprovalRow) => {
    if (row.replica === replica) settleFromRow(row);
    else options.publish(row.id);
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
          cluster.settleApproval(approval.id, "cancelled", CANCELLED_REASON).then(
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
    decide: createDecide(options, wake),
    async list(agent) {
      const rows = await cluster.listPendingApprovals(agent);
      const expired = rows.filter((r) => r.replica === OPENED_REPLICA && openedExpired(toPending(r)));
      for (const row of expired) {
        cluster
          .settleApproval(row.id, "abandoned", EXPIRED_REASON, ["pending"])
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
        await cluster.settleApproval(id, "abandoned", EXPIRED_REASON, ["pending"]);
        await cluster.deleteSettledApproval(id);
        return null;
      }
      const taken = await cluster.deleteSettledApproval(id);
      return taken === null ? null : { approval: toPending(taken), decision: decisionOf(taken) };
    },
    async denyAll(reason) {
      await Promise.all(
        [...waiting.keys()].map(async (id) => {
          // "abandoned": a later decision is told the call is gone. A row the call took meanwhile
          // (approved) keeps its decision.
          const row = await cluster
            .settleApproval(id, "abandoned", reason)
            .then((settled) => settled ?? cluster.getApproval(id))
            .catch((error: unknown) => {
              report("approval denial on shutdown", error);
              return null;
            });
          waiting.get(id)?.((row === null ? null : decisionOf(row)) ?? { approved: false, reason });
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
