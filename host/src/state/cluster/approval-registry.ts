// Pending approvals for calls to tools that are not read-only. `request` registers a
// PendingApproval and resolves with the decision; `decide` settles one by id. `open` registers
// one that no call waits on (a 2026-07-28 round ended with input_required; its retry reads the
// decision with `take`). Invariants: a pending approval is settled exactly once (decision, the
// call's signal aborting, or the host closing, which denies everything still pending); a settled
// id is gone from `list`; an opened approval's decision is handed out by `take` once, and an
// opened approval left undecided expires after OPEN_APPROVAL_TTL_MS. A decision of an approval
// that is no longer pending says why (the last ENDED_KEPT ended ids are remembered):
// AIRLOCK_APPROVAL_ALREADY_DECIDED naming the decision that stands, AIRLOCK_APPROVAL_CALL_GONE
// when its call no longer waits (cancelled or timed out, the host closed, expired) — never
// "approved" for a call that will not run.
// This is the one-process registry; replicas sharing a PostgreSQL store use the store-backed
// one (approvals.ts beside it), which keeps this interface. Both are state (where a pending
// approval lives), so they sit in state/ and the engine's people/ steps use them from above:
// who decides, and how a person is asked, is engine/people/.
import { randomUUID } from "node:crypto";
import { AirlockError } from "@airlock/sdk";
import type { PendingApproval } from "../../contracts/host.ts";

/** The approval codes' statuses (their catalogue entries are in engine/pipeline/errors.ts). */
const NOT_FOUND_STATUS = 404;
const CALL_GONE_STATUS = 410;
const ALREADY_DECIDED_STATUS = 409;

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
  /**
   * Settles a pending approval; answers what it was. Refused with AIRLOCK_APPROVAL_CALL_GONE when
   * its call no longer waits (cancelled, timed out, its replica gone, expired),
   * AIRLOCK_APPROVAL_ALREADY_DECIDED when another decision came first, AIRLOCK_APPROVAL_NOT_FOUND
   * when unknown.
   */
  decide(id: string, decision: { approve: boolean; reason?: string }): Promise<PendingApproval>;
  list(agent?: string): Promise<PendingApproval[]>;
  /** Registers a pending approval no call waits on; `onPending` as for `request`. */
  open(
    fields: Omit<PendingApproval, "id" | "requestedAt">,
    onPending: (approval: PendingApproval) => void,
  ): Promise<PendingApproval>;
  /**
   * An opened approval: still pending (decision null, it stays), or its decision, handed out
   * once (the approval is forgotten). Null when unknown, expired or already taken.
   */
  take(id: string): Promise<OpenedApproval | null>;
  /** Denies every pending approval of this process (host shutdown). */
  denyAll(reason: string): Promise<void>;
}

export interface OpenedApproval {
  approval: PendingApproval;
  decision: ApprovalDecision | null;
}

export const DEFAULT_DENIAL = "the operator denied this call";
/** How long an opened approval waits for a decision (the 2026-07-28 round state lives as long). */
export const OPEN_APPROVAL_TTL_MS = 10 * 60 * 1000;
export const EXPIRED_REASON = "no operator decided within the approval's lifetime";

export function newApproval(fields: Omit<PendingApproval, "id" | "requestedAt">): PendingApproval {
  return { ...fields, id: `apr_${randomUUID()}`, requestedAt: new Date().toISOString() };
}

export function openedExpired(approval: PendingApproval, now = Date.now()): boolean {
  return Date.parse(approval.requestedAt) + OPEN_APPROVAL_TTL_MS < now;
}

export function approvalNotFound(id: string): AirlockError {
  return new AirlockError("AIRLOCK_APPROVAL_NOT_FOUND", `no approval has id "${id}"`, {
    status: NOT_FOUND_STATUS,
  });
}

export const CANCELLED_REASON = "the call was cancelled or timed out while it waited";
export const CLOSED_REASON = "the host closed while the call waited";

/** A decision refused because the call no longer waits: `why` says what became of it. */
export function callGone(id: string, why: string): AirlockError {
  return new AirlockError(
    "AIRLOCK_APPROVAL_CALL_GONE",
    `approval "${id}" can no longer be decided: ${why}; nothing ran`,
    { status: CALL_GONE_STATUS },
  );
}

/** A decision refused because another one came first (`approved`: the one that stands). */
export function alreadyDecided(id: string, approved: boolean): AirlockError {
  return new AirlockError(
    "AIRLOCK_APPROVAL_ALREADY_DECIDED",
    `approval "${id}" was already ${approved ? "approved" : "denied"}; that decision stands`,
    { status: ALREADY_DECIDED_STATUS },
  );
}

/** What became of an approval that is no longer pending (kept so a late decision is told why). */
type Ended = { approved: boolean } | { gone: string };

/** How many ended approvals the one-process registry remembers (oldest forgotten first). */
const ENDED_KEPT = 10_000;

function refuseEnded(id: string, ended: Ended | undefined): never {
  if (ended === undefined) throw approvalNotFound(id);
  if ("gone" in ended) throw callGone(id, ended.gone);
  throw alreadyDecided(id, ended.approved);
}

interface Entry {
  approval: PendingApproval;
  settle: (decision: ApprovalDecision, why: Ended) => void;
}

export function createApprovalRegistry(): ApprovalRegistry {
  const pending = new Map<string, Entry>();
  /** Opened approvals (no call waits): pending, or decided and not yet taken. */
  const opened = new Map<string, OpenedApproval>();
  const ended = new Map<string, Ended>();
  const end = (id: string, what: Ended) => {
    ended.set(id, what);
    if (ended.size > ENDED_KEPT) ended.delete(ended.keys().next().value as string);
  };
  const sweepOpened = () => {
    for (const [id, entry] of opened) {
      if (!openedExpired(entry.approval)) continue;
      opened.delete(id);
      end(id, entry.decision === null ? { gone: EXPIRED_REASON } : { approved: entry.decision.approved });
    }
  };

  return {
    request(fields, signal, onPending) {
      return new Promise<ApprovalDecision>((resolve) => {
        if (signal?.aborted) {
          resolve({ approved: false, cancelled: true });
          return;
        }
        const approval = newApproval(fields);
        const onAbort = () => settle({ approved: false, cancelled: true }, { gone: CANCELLED_REASON });
        const settle = (decision: ApprovalDecision, why: Ended) => {
          if (!pending.delete(approval.id)) return;
          end(approval.id, why);
          signal?.removeEventListener("abort", onAbort);
          resolve(decision);
        };
        pending.set(approval.id, { approval, settle });
        signal?.addEventListener("abort", onAbort, { once: true });
        onPending({ ...approval, input: structuredClone(approval.input) });
      });
    },
    async decide(id, decision) {
      sweepOpened();
      const approved = decision.approve === true;
      const settled: ApprovalDecision = approved
        ? { approved: true }
        : { approved: false, reason: decision.reason ?? DEFAULT_DENIAL };
      const open = opened.get(id);
      if (open !== undefined) {
        if (open.decision !== null) throw alreadyDecided(id, open.decision.approved);
        open.decision = settled;
        return open.approval;
      }
      const entry = pending.get(id);
      if (entry === undefined) refuseEnded(id, ended.get(id));
      entry.settle(settled, { approved });
      return entry.approval;
    },
    async list(agent) {
      sweepOpened();
      const undecided = [...opened.values()].filter((o) => o.decision === null).map((o) => o.approval);
      return [...[...pending.values()].map((e) => e.approval), ...undecided]
        .filter((a) => agent === undefined || a.agent === agent)
        .map((a) => ({ ...a, input: structuredClone(a.input) }));
    },
    async open(fields, onPending) {
      const approval = newApproval(fields);
      opened.set(approval.id, { approval, decision: null });
      onPending({ ...approval, input: structuredClone(approval.input) });
      return approval;
    },
    async take(id) {
      sweepOpened();
      const entry = opened.get(id);
      if (entry === undefined) return null;
      if (entry.decision !== null) {
        opened.delete(id);
        end(id, { approved: entry.decision.approved });
      }
      return {
        approval: { ...entry.approval, input: structuredClone(entry.approval.input) },
        decision: entry.decision,
      };
    },
    async denyAll(reason) {
      for (const entry of [...pending.values()])
        entry.settle({ approved: false, reason }, { gone: CLOSED_REASON });
      // Opened approvals end with the process: a retry then finds none and opens a new one.
    },
  };
}
