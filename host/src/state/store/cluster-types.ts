// What replicas sharing one PostgreSQL store coordinate through (Store.cluster, PostgreSQL
// only; the embedded SQLite store has no replicas). Rows hold the state — heartbeats,
// approvals, recent host events, plugin packages by integrity — and LISTEN/NOTIFY only wakes
// the other replicas up: a signal carries a few small fields, never the only copy of anything,
// and a replica that (re)connects its listener re-reads the rows instead of trusting what it
// may have missed.
import type { PendingApproval } from "../../contracts/people.ts";

/** A wake-up (≤ a few hundred bytes as JSON). `replica` is the sender; receivers skip their own. */
export interface ClusterSignal {
  replica: string;
  /** "tools": what an agent is served changed; "level": a knowledge level; "approval": one was decided; "events": new host_events rows; "streams": a replica's first event stream opened; "task": a task of `agent` ended (`id`); "tokens": a token was revoked (cached lookups are dropped). */
  kind: "tools" | "level" | "approval" | "events" | "streams" | "task" | "tokens";
  agent?: string | null;
  reason?: string;
  /** The approval (or task) concerned. */
  id?: string;
}

export interface ClusterListenHandlers {
  onSignal(signal: ClusterSignal): void;
  /** The listener (re)connected: signals may have been missed, re-read the rows. */
  onResync(): void;
  /** The listening connection failed (it reconnects by itself). */
  onError(error: unknown): void;
}

/**
 * "approving": an operator approved, and the waiting call has not yet taken the decision (it
 * moves the row to "approved" when it does; a row whose call is gone ends "abandoned" instead).
 */
export type ApprovalStatus = "pending" | "approving" | "approved" | "denied" | "cancelled" | "abandoned";

/** A pending approval as the cluster's shared table keeps it (contracts/people.ts), and its fate. */
export interface ApprovalRow extends PendingApproval {
  /** The replica whose call waits for it. */
  replica: string;
  status: ApprovalStatus;
  reason: string | null;
}

export interface HostEventRow {
  id: number;
  replica: string;
  type: string;
  agent: string | null;
  body: Record<string, unknown>;
}

export interface PluginPackageRow {
  integrity: string;
  bytes: Uint8Array;
  signatures: Array<{ keyid: string; sig: string }>;
}

export interface ClusterStore {
  /** Sends a wake-up to every listening replica of this store (same database and schema). */
  notify(signal: ClusterSignal): Promise<void>;
  /** Starts listening on a dedicated connection that reconnects by itself; resolves once listening. */
  listen(handlers: ClusterListenHandlers): Promise<{ close(): Promise<void> }>;

  /**
   * Records (or refreshes) this replica's heartbeat with its open event streams; answers how many
   * streams the other live replicas (heartbeat within `staleMs`) have open.
   */
  heartbeat(replica: string, streams: number, staleMs: number): Promise<number>;
  /** Marks a replica stopped (graceful shutdown). */
  stopReplica(replica: string): Promise<void>;
  /**
   * Marks `abandoned`, with a reason naming the replica, every pending (or approving) approval
   * whose replica has stopped or sent no heartbeat for `staleMs`; returns the ids.
   */
  abandonOrphanedApprovals(staleMs: number): Promise<string[]>;

  insertApproval(row: Omit<ApprovalRow, "status" | "reason">): Promise<void>;
  /**
   * Settles an approval whose status is one of `from` (default: pending or approving, i.e. not
   * final); one conditional UPDATE, so of racing settlers exactly one wins. Null when unknown
   * or in another status.
   */
  settleApproval(
    id: string,
    status: Exclude<ApprovalStatus, "pending">,
    reason: string | null,
    from?: ReadonlyArray<ApprovalStatus>,
  ): Promise<ApprovalRow | null>;
  getApproval(id: string): Promise<ApprovalRow | null>;
  /**
   * The approval and whether the replica whose call waits for it is alive (not stopped, a
   * heartbeat within `staleMs`); null when unknown.
   */
  getApprovalLiveness(id: string, staleMs: number): Promise<{ row: ApprovalRow; alive: boolean } | null>;
  /** Deletes an approval that is no longer pending and answers it; null when unknown, pending or gone. */
  deleteSettledApproval(id: string): Promise<ApprovalRow | null>;
  /** Pending approvals, oldest first. */
  listPendingApprovals(agent?: string): Promise<ApprovalRow[]>;
  countPendingApprovals(): Promise<number>;

  appendEvents(rows: ReadonlyArray<Omit<HostEventRow, "id">>): Promise<void>;
  /** Events with id > `after` from other replicas than `exclude`, oldest first (at most `limit`). */
  readEvents(after: number, exclude: string, limit: number): Promise<HostEventRow[]>;
  /** The newest event id (0 when none): where a replica starts reading. */
  lastEventId(): Promise<number>;
  /** Deletes events older than `maxAgeMs`. */
  pruneEvents(maxAgeMs: number): Promise<number>;

  /** Stores a plugin package once, keyed by its tarball integrity (a second put is a no-op). */
  putPluginPackage(row: PluginPackageRow): Promise<void>;
  getPluginPackage(integrity: string): Promise<PluginPackageRow | null>;
}
