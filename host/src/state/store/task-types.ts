// What the store keeps of a long-running call run as a task (MCP tasks; host/src/engine/tasks/): one
// row per task, in both dialects, so any replica sharing the store answers tasks/get, result
// retrieval and cancellation. The row is the task's only state; the job queue (pg-boss on
// PostgreSQL) only carries the task id to the replica that runs it.
// Invariants: a row leaves `working` once and only through `settleTask`, `cancelTask` or
// `failStaleTasks` (conditional updates: the first wins, later ones change nothing); every read
// is bound to the agent that started the task and ignores expired rows; the input is dropped
// when the task settles (only the outcome is kept until the TTL). A claimed row belongs to one
// replica at a time: `resumeTask` moves a stale resumable row to another replica by one
// conditional update (of racing replicas exactly one gets it), and the beats and settlement of
// the replica that lost it no longer touch it.

import type { TaskStatus } from "../../contracts/tasks.ts";

export type { TaskStatus };

export interface TaskRow {
  id: string;
  agent: string;
  toolName: string;
  conversationId: string;
  /** The call's input until the task settles, then {}. */
  input: Record<string, unknown>;
  /** How the call is made (autoApprove, trace context, wall limit): JSON, host-defined. */
  options: Record<string, unknown>;
  status: TaskStatus;
  statusMessage: string | null;
  /** The replica running the call; null while it waits in the queue. */
  replica: string | null;
  /** The ToolCallOutcome once completed (JSON). */
  outcome: Record<string, unknown> | null;
  errorCode: string | null;
  errorMessage: string | null;
  /** Epoch milliseconds. */
  createdAt: number;
  updatedAt: number;
  /** The running replica's last sign of life for this task (null until claimed). */
  beatAt: number | null;
  ttlMs: number;
  expiresAt: number;
  /** Whether another replica may run the call again if this one's replica dies (set at start). */
  resumable: boolean;
  /** How many times the task was resumed by another replica (0: still its first run). */
  attempts: number;
}

export type NewTaskRow = Pick<
  TaskRow,
  "id" | "agent" | "toolName" | "conversationId" | "input" | "options" | "createdAt" | "ttlMs" | "resumable"
>;

/** A claimed working task whose replica went silent (a candidate for resumeTask). */
export interface StaleTask {
  id: string;
  /** The silent replica. */
  replica: string;
  attempts: number;
}

export interface TaskSettlement {
  status: Exclude<TaskStatus, "working">;
  outcome?: Record<string, unknown>;
  errorCode?: string;
  errorMessage?: string;
  statusMessage?: string;
}

export interface TaskStore {
  insertTask(row: NewTaskRow): Promise<void>;
  /** The agent's task, or null (unknown, another agent's, or past its TTL). */
  getTask(agent: string, id: string, now: number): Promise<TaskRow | null>;
  /** The agent's unexpired tasks, newest first, after the cursor row (createdAt, id). */
  listTasks(
    agent: string,
    now: number,
    after: { createdAt: number; id: string } | null,
    limit: number,
  ): Promise<TaskRow[]>;
  /** Marks a queued task as run by `replica`; null when it is not working, already claimed or expired. */
  claimTask(id: string, replica: string, now: number): Promise<TaskRow | null>;
  /**
   * Refreshes `replica`'s sign of life for these tasks; answers the status of those it still
   * holds (a task missing from the answer was resumed by another replica, or deleted).
   */
  beatTasks(
    ids: readonly string[],
    replica: string,
    now: number,
  ): Promise<Array<{ id: string; status: TaskStatus }>>;
  /**
   * Settles a working task; null when it was no longer working (cancelled, failed, settled) or,
   * given `owner`, when another replica holds it now (it was resumed elsewhere).
   */
  settleTask(id: string, settlement: TaskSettlement, now: number, owner?: string): Promise<TaskRow | null>;
  /**
   * Sets the status message of a working task `replica` holds (its latest progress); false when
   * the task ended or another replica holds it.
   */
  noteTaskProgress(id: string, replica: string, message: string, now: number): Promise<boolean>;
  /**
   * Resumable working tasks whose replica gave no sign of life since `staleBefore` and that were
   * resumed fewer than `maxAttempts` times, oldest first, at most `limit`.
   */
  staleResumableTasks(
    staleBefore: number,
    maxAttempts: number,
    limit: number,
    now: number,
  ): Promise<StaleTask[]>;
  /**
   * Claims stale task `stale.id` for `replica` to run again: one conditional update that holds
   * only while the row is still working, resumable, held by the silent `stale.replica`, silent
   * since `staleBefore`, at `stale.attempts` and unexpired; it counts the attempt, refreshes the
   * beat and sets the status message. Of replicas racing for it exactly one gets the row; the
   * others get null.
   */
  resumeTask(
    stale: StaleTask,
    staleBefore: number,
    replica: string,
    message: string,
    now: number,
  ): Promise<TaskRow | null>;
  /**
   * Cancels the agent's task if it is still working; answers the row as it is afterwards (already
   * terminal rows unchanged) and whether this call cancelled it, or null when unknown to this agent.
   */
  cancelTask(
    agent: string,
    id: string,
    message: string,
    now: number,
  ): Promise<{ row: TaskRow; cancelled: boolean } | null>;
  /**
   * Fails, with `code`, every claimed working task whose replica gave no sign of life since
   * `staleBefore` (it died) and that may not be resumed (not resumable, or already resumed
   * `maxAttempts` times); returns their ids and tools.
   */
  failStaleTasks(
    staleBefore: number,
    maxAttempts: number,
    code: string,
    message: string,
    now: number,
  ): Promise<Array<{ id: string; agent: string; toolName: string; attempts: number }>>;
  /** Working tasks no replica has claimed yet (the task queue's depth). */
  countQueuedTasks(): Promise<number>;
  /** Deletes tasks past their TTL; returns how many. */
  pruneTasks(now: number): Promise<number>;
}
