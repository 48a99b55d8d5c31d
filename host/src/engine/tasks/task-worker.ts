// A replica's worker side of the task service: it runs the tasks the queue hands it and keeps
// their rows alive. `run` claims a task's row, replays the call through the host's pipeline under
// the task's wall ceiling, and writes the outcome back; the heartbeat refreshes the rows of the
// tasks running here every BEAT_MS and aborts those cancelled through another replica; the sweep
// fails every replica's claimed task silent for `staleMs` (AIRLOCK_TASK_REPLICA_LOST).
// Invariants: a task runs only once claimed (a second delivery finds nothing to claim); the
// sandbox enforces the ceiling (CallOptions.wallMs), this worker's timer is a backstop
// WALL_BACKSTOP_MS later; a call aborted by close() fails AIRLOCK_TASK_HOST_STOPPED; the first
// settlement of a row stands (settleTask answers null once it was cancelled or failed as lost).
import type { CallOptions, RunOptions, ToolCallOutcome } from "../../contracts/host.ts";
import type { TaskRow, TaskSettlement, TaskStore } from "../../state/store/task-types.ts";

/** How often a replica refreshes the rows of the tasks it runs (and reads back cancellations). */
export const BEAT_MS = 250;
/** How long after the ceiling this service aborts a task call the sandbox did not stop itself. */
export const WALL_BACKSTOP_MS = 1000;
const SWEEPS_PER_PRUNE = 60;

export type Call = (
  agent: string,
  toolName: string,
  input: unknown,
  options: CallOptions & RunOptions,
) => Promise<ToolCallOutcome>;

/** What start() records of the call besides its input (TaskRow.options). */
export interface StoredOptions {
  tools?: string[];
  groups?: string[];
  harness?: string[];
  autoApprove?: boolean;
  trace?: { traceparent: string; tracestate?: string };
  /** The end user the call is for (CallOptions.subject); the pipeline checks it when the task runs. */
  subject?: string;
}

export interface TaskWorkerContext {
  store: TaskStore;
  replica: string;
  call: Call;
  /** A replica silent this long is dead: its running tasks fail. */
  staleMs: number;
  /** How often this replica looks for dead replicas' tasks. */
  sweepMs: number;
  report: (what: string, error: unknown) => void;
  onStatus: ((agent: string, id: string) => void) | undefined;
  clock: () => number;
  /** The calls running on this replica, by task id (shared with the service's cancel and close). */
  running: Map<string, AbortController>;
  /** Wakes this replica's waiters on a task. */
  wake: (id: string) => void;
  /** The wall ceiling of a task call of this tool. */
  wallFor: (toolName: string) => number;
  /** True once the service closes: no new task starts, aborted calls fail as HOST_STOPPED. */
  closing: () => boolean;
}

/** The call options of a claimed task: its stored options, the task's signal and ceiling. */
function callOptionsOf(claimed: TaskRow, signal: AbortSignal, wallMs: number): CallOptions & RunOptions {
  const stored = claimed.options as StoredOptions;
  return {
    agent: claimed.agent,
    conversationId: claimed.conversationId,
    signal,
    // The sandbox's per-call deadline is the task's ceiling, not the plugin's wallMs.
    wallMs,
    ...(stored.tools === undefined ? {} : { tools: stored.tools }),
    ...(stored.groups === undefined ? {} : { groups: stored.groups }),
    ...(stored.harness === undefined ? {} : { harness: stored.harness }),
    ...(stored.autoApprove === undefined ? {} : { autoApprove: stored.autoApprove }),
    ...(stored.trace === undefined ? {} : { trace: stored.trace }),
    ...(typeof stored.subject === "string" ? { subject: stored.subject } : {}),
  };
}

/** The queue's runner: claims task `id`, runs its call here, settles its row. */
export async function runTask(ctx: TaskWorkerContext, id: string): Promise<void> {
  const { store, replica, report, clock, running } = ctx;
  if (ctx.closing()) return;
  const claimed = await store.claimTask(id, replica, clock());
  if (claimed === null) return; // cancelled, expired, or another delivery already runs it
  const controller = new AbortController();
  running.set(id, controller);
  const wallMs = ctx.wallFor(claimed.toolName);
  let pastWall = false;
  const timer = setTimeout(() => {
    pastWall = true;
    controller.abort();
  }, wallMs + WALL_BACKSTOP_MS);
  let settlement: TaskSettlement;
  try {
    const outcome = await ctx.call(
      claimed.agent,
      claimed.toolName,
      claimed.input,
      callOptionsOf(claimed, controller.signal, wallMs),
    );
    settlement = {
      status: "completed",
      outcome: outcome as unknown as Record<string, unknown>,
      ...(pastWall ? { statusMessage: `the task passed its ${wallMs} ms wall limit` } : {}),
    };
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    settlement = {
      status: "failed",
      errorCode: typeof code === "string" && code.startsWith("AIRLOCK_") ? code : "AIRLOCK_TASK_FAILED",
      errorMessage: error instanceof Error ? error.message : String(error),
    };
    if (settlement.errorCode === "AIRLOCK_TASK_FAILED") report(`task ${id}`, error);
  } finally {
    clearTimeout(timer);
    running.delete(id);
  }
  if (ctx.closing() && controller.signal.aborted && !pastWall) {
    settlement = {
      status: "failed",
      errorCode: "AIRLOCK_TASK_HOST_STOPPED",
      errorMessage: `the replica ${replica} shut down before the call finished`,
    };
  }
  // null: cancelled (or failed as lost) meanwhile; that first decision stands.
  const settled = await store
    .settleTask(id, settlement, clock())
    .catch((error: unknown) => report(`settling task ${id}`, error));
  ctx.wake(id);
  if (settled !== null && settled !== undefined) ctx.onStatus?.(claimed.agent, id);
}

/** Starts this replica's heartbeat and sweep; returns what stops them. */
export function startTaskLiveness(ctx: TaskWorkerContext): () => void {
  const { store, report, clock, running } = ctx;
  const beat = setInterval(() => {
    if (running.size === 0) return;
    store
      .beatTasks([...running.keys()], clock())
      .then((rows) => {
        for (const { id, status } of rows) if (status !== "working") running.get(id)?.abort();
      })
      .catch((error: unknown) => report("task heartbeat", error));
  }, BEAT_MS);
  beat.unref();
  let sweeps = 0;
  const sweep = setInterval(() => {
    const now = clock();
    store
      .failStaleTasks(
        now - ctx.staleMs,
        "AIRLOCK_TASK_REPLICA_LOST",
        `the replica running the task gave no sign of life for ${ctx.staleMs} ms`,
        now,
      )
      .then((ids) => {
        for (const id of ids) ctx.wake(id);
        if (++sweeps % SWEEPS_PER_PRUNE === 0) return store.pruneTasks(now);
        return 0;
      })
      .catch((error: unknown) => report("task sweep", error));
  }, ctx.sweepMs);
  sweep.unref();
  return () => {
    clearInterval(beat);
    clearInterval(sweep);
  };
}
