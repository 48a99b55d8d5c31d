// Long-running calls run as tasks, as the host's API offers them (AirlockHost.tasks): start a
// call as a task, read it, wait for it, list, cancel; and the operator's task settings.
// Surfaces (the MCP server's tasks utility and tasks extension) map these onto their wire
// shapes; they never touch the task rows themselves. engine/tasks/ implements them.
// Invariants: every operation takes the agent and sees only that agent's tasks (another agent
// gets null, never a hint that the id exists); a view is what the store holds at that moment,
// so any replica sharing the store answers the same.
import type { CallOptions, RunOptions, ToolCallOutcome } from "./runs.ts";

/** Where a task is: running (or queued), or how it ended. */
export type TaskStatus = "working" | "completed" | "failed" | "cancelled";

export interface TaskSettings {
  /** How long a task (and its result) is kept after it starts; a client may ask for less. Default 1 h. */
  ttlMs: number;
  /** Wall-clock ceiling of a task call, for every long-running tool. Default 10 min. */
  wallMs: number;
  /** Per-tool ceilings (`ns:tool` → ms) that replace `wallMs` for that tool. */
  toolWallMs: Record<string, number>;
  /** The polling interval suggested to clients. Default 500 ms. */
  pollIntervalMs: number;
  /** Task calls this replica runs at once; 0: it runs none (it still starts, reads and cancels). Default 4. */
  concurrency: number;
  /**
   * How many times a task of a tool safe to run again (engine/tasks/resumable.ts) is resumed by
   * another replica after the replica running it died; past that, or 0, it fails with
   * AIRLOCK_TASK_REPLICA_LOST like any other task. Give every replica the same value. Default 2.
   */
  resumeLimit: number;
}

export interface TaskView {
  id: string;
  agent: string;
  /** Canonical tool id (`ns:tool`). */
  toolName: string;
  status: TaskStatus;
  statusMessage?: string;
  /** Epoch milliseconds. */
  createdAt: number;
  updatedAt: number;
  ttlMs: number;
  pollIntervalMs: number;
  /** The call's outcome once `completed` (a tool error is a completed task whose result has isError). */
  outcome?: ToolCallOutcome;
  /** Why it `failed` (AIRLOCK_TASK_*), or why it was `cancelled`. */
  error?: { code: string; message: string };
}

export type TaskStartOptions = Pick<
  RunOptions,
  "conversationId" | "tools" | "groups" | "harness" | "autoApprove"
> &
  Pick<CallOptions, "trace" | "subject"> & {
    /** What the client asked for; the operator's ttlMs caps it. */
    ttlMs?: number;
  };

export interface HostTasks {
  /** Records the task (durably) and queues its call; resolves with the task as created. */
  start(agent: string, toolName: string, input: unknown, options?: TaskStartOptions): Promise<TaskView>;
  get(agent: string, id: string): Promise<TaskView | null>;
  /** Resolves once the task is terminal (null when unknown to this agent); `signal` ends the wait. */
  wait(agent: string, id: string, signal?: AbortSignal): Promise<TaskView | null>;
  /** The agent's tasks, newest first, one page at a time. */
  list(agent: string, cursor?: string): Promise<{ tasks: TaskView[]; nextCursor?: string }>;
  /**
   * Stops a working task (it ends `cancelled`); answers the task as it is afterwards and whether
   * this call cancelled it (false: it had already completed, failed or been cancelled).
   */
  cancel(agent: string, id: string): Promise<{ task: TaskView; cancelled: boolean } | null>;
  /** Tasks waiting for a replica to run them (every replica sharing the store). */
  queueDepth(): Promise<number>;
  /** Task calls running on this replica. */
  running(): number;
  close(): Promise<void>;
}
