// A replica's worker side of the task service: it runs the tasks the queue hands it, resumes the
// resumable tasks of replicas that died, and keeps their rows alive. `run` claims a task's row,
// replays the call through the host's pipeline under the task's wall ceiling, and writes the
// outcome back; the heartbeat refreshes the rows of the tasks running here every BEAT_MS and
// aborts those cancelled through another replica (or resumed by another); the sweep resumes
// here, while this replica has room, the stale tasks of tools safe to run again
// (./resumable.ts) that were resumed fewer than `resumeLimit` times, and fails every other
// claimed task silent for `staleMs` with AIRLOCK_TASK_REPLICA_LOST.
// Invariants: a task runs only once claimed (a second delivery finds nothing to claim); a stale
// task is resumed by one replica only (resumeTask is one conditional update) and only when it
// is resumable both by its row (decided at start) and by its tool now; a task that is not is
// never run again; each resume is audited (`task.resumed`), and so is each task failed as lost
// (`task.lost`); the sandbox enforces the ceiling (CallOptions.wallMs), this worker's timer is
// a backstop WALL_BACKSTOP_MS later; a call aborted by close() fails AIRLOCK_TASK_HOST_STOPPED;
// the first settlement of a row stands (settleTask answers null once it was cancelled, failed
// as lost, or resumed by another replica).
import type { CallOptions, RunOptions, ToolCallOutcome } from "../../contracts/host.ts";
import type { StaleTask, TaskRow, TaskSettlement, TaskStore } from "../../state/store/task-types.ts";
import type { AuditInput } from "../../state/store/types.ts";
import { splitId } from "./views.ts";

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
  /** Task calls this replica runs at once (the sweep resumes stale tasks only within it). */
  concurrency: number;
  /** How many times a task may be resumed (TaskSettings.resumeLimit). */
  resumeLimit: number;
  /** Whether a task of this tool may be run again now (./resumable.ts on the catalogue). */
  resumable: (toolName: string) => boolean;
  /** The latest progress of the calls running here not yet written to their rows (by the beat). */
  progress: Map<string, string>;
  /** The resumed calls running here (close() waits for them). */
  resumed: Set<Promise<void>>;
  audit: (entry: AuditInput) => Promise<void>;
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

/** A progress notification as a task's status message (`crunching: 3/10`, and the resumes). */
function progressText(n: { progress: number; total?: number; message?: string }, attempts: number): string {
  const text = `${n.message ?? "progress"}: ${n.progress}${n.total === undefined ? "" : `/${n.total}`}`;
  const resumed = attempts === 0 ? "" : ` (resumed ${attempts} time${attempts === 1 ? "" : "s"})`;
  return `${text}${resumed}`.slice(0, 500);
}

/** The queue's runner: claims task `id`, runs its call here, settles its row. */
export async function runTask(ctx: TaskWorkerContext, id: string): Promise<void> {
  if (ctx.closing()) return;
  const claimed = await ctx.store.claimTask(id, ctx.replica, ctx.clock());
  if (claimed === null) return; // cancelled, expired, or another delivery already runs it
  await runClaimed(ctx, claimed);
}

/** Runs the call of a task this replica holds (claimed or resumed) and settles its row. */
async function runClaimed(ctx: TaskWorkerContext, claimed: TaskRow): Promise<void> {
  const { store, replica, report, clock, running } = ctx;
  const id = claimed.id;
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
    const outcome = await ctx.call(claimed.agent, claimed.toolName, claimed.input, {
      ...callOptionsOf(claimed, controller.signal, wallMs),
      // The tool's progress becomes the row's status message at the next beat (any replica reads it).
      onNotification: (n) => {
        if (n.type === "progress") ctx.progress.set(id, progressText(n, claimed.attempts));
      },
    });
    const resumedNote =
      claimed.attempts > 0
        ? `completed after ${claimed.attempts} resume${claimed.attempts === 1 ? "" : "s"} on another replica`
        : undefined;
    const note = pastWall ? `the task passed its ${wallMs} ms wall limit` : resumedNote;
    settlement = {
      status: "completed",
      outcome: outcome as unknown as Record<string, unknown>,
      ...(note === undefined ? {} : { statusMessage: note }),
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
    ctx.progress.delete(id);
  }
  if (ctx.closing() && controller.signal.aborted && !pastWall) {
    settlement = {
      status: "failed",
      errorCode: "AIRLOCK_TASK_HOST_STOPPED",
      errorMessage: `the replica ${replica} shut down before the call finished`,
    };
  }
  // null: cancelled, failed as lost or resumed elsewhere meanwhile; that first decision stands.
  const settled = await store
    .settleTask(id, settlement, clock(), replica)
    .catch((error: unknown) => report(`settling task ${id}`, error));
  ctx.wake(id);
  if (settled !== null && settled !== undefined) ctx.onStatus?.(claimed.agent, id);
}

/** A task event of the worker audited: kind "tool", action task.<op>, the task id and `details`. */
async function auditTask(
  ctx: TaskWorkerContext,
  row: { agent: string; toolName: string; id: string },
  op: "resumed" | "lost",
  details: Record<string, unknown>,
): Promise<void> {
  const [plugin, tool] = splitId(row.toolName);
  await ctx
    .audit({
      agent: row.agent,
      plugin,
      tool,
      conversationId: null,
      kind: "tool",
      action: `task.${op}`,
      allowed: true,
      success: op === "resumed",
      error: op === "lost" ? "AIRLOCK_TASK_REPLICA_LOST" : null,
      durationMs: null,
      details: { taskId: row.id, ...details },
    })
    .catch((error: unknown) => ctx.report(`auditing task.${op}`, error));
}

/** Takes over one stale task: claims it, checks its tool still may run again, runs it here. */
async function resumeOne(ctx: TaskWorkerContext, stale: StaleTask, staleBefore: number, now: number) {
  const attempt = stale.attempts + 1;
  const message = `resumed on replica ${ctx.replica} after replica ${stale.replica} gave no sign of life for ${ctx.staleMs} ms (resume ${attempt} of ${ctx.resumeLimit})`;
  const claimed = await ctx.store.resumeTask(stale, staleBefore, ctx.replica, message, now);
  if (claimed === null) return; // another replica resumed it first, or it ended meanwhile
  const facts = { attempt, lostReplica: stale.replica, replica: ctx.replica };
  if (!ctx.resumable(claimed.toolName)) {
    // Its tool is no longer safe to repeat (upgraded, or gone): it is failed, never run again.
    const failed = await ctx.store.settleTask(
      claimed.id,
      {
        status: "failed",
        errorCode: "AIRLOCK_TASK_REPLICA_LOST",
        errorMessage: `the replica running the task gave no sign of life for ${ctx.staleMs} ms, and its tool ${claimed.toolName} is no longer read-only: not run again`,
      },
      ctx.clock(),
      ctx.replica,
    );
    await auditTask(ctx, claimed, "lost", { ...facts, reason: "tool not resumable" });
    ctx.wake(claimed.id);
    if (failed !== null) ctx.onStatus?.(claimed.agent, claimed.id);
    return;
  }
  await auditTask(ctx, claimed, "resumed", facts);
  const run = runClaimed(ctx, claimed).catch((error: unknown) =>
    ctx.report(`resumed task ${claimed.id}`, error),
  );
  ctx.resumed.add(run);
  void run.finally(() => ctx.resumed.delete(run));
}

/** One sweep: resume what this replica has room for, then fail what may not be resumed. */
async function sweepStale(ctx: TaskWorkerContext, now: number): Promise<string[]> {
  const staleBefore = now - ctx.staleMs;
  const room = ctx.concurrency - ctx.running.size;
  if (room > 0 && ctx.resumeLimit > 0 && !ctx.closing()) {
    const candidates = await ctx.store.staleResumableTasks(staleBefore, ctx.resumeLimit, room, now);
    for (const stale of candidates) {
      if (ctx.closing() || ctx.running.size >= ctx.concurrency) break;
      await resumeOne(ctx, stale, staleBefore, now);
    }
  }
  const lost = await ctx.store.failStaleTasks(
    staleBefore,
    ctx.resumeLimit,
    "AIRLOCK_TASK_REPLICA_LOST",
    `the replica running the task gave no sign of life for ${ctx.staleMs} ms`,
    now,
  );
  for (const row of lost) {
    await auditTask(ctx, row, "lost", { attempts: row.attempts });
    ctx.onStatus?.(row.agent, row.id);
  }
  return lost.map((row) => row.id);
}

/** Writes the latest progress of the calls running here to their rows (one write per changed task). */
async function writeProgress(ctx: TaskWorkerContext): Promise<void> {
  const pending = [...ctx.progress];
  ctx.progress.clear();
  for (const [id, message] of pending) {
    if (ctx.running.has(id)) await ctx.store.noteTaskProgress(id, ctx.replica, message, ctx.clock());
  }
}

/** Starts this replica's heartbeat and sweep; returns what stops them. */
export function startTaskLiveness(ctx: TaskWorkerContext): () => void {
  const { store, report, clock, running } = ctx;
  const beat = setInterval(() => {
    if (running.size === 0) return;
    const ids = [...running.keys()];
    store
      .beatTasks(ids, ctx.replica, clock())
      .then((rows) => {
        const held = new Map(rows.map((r) => [r.id, r.status]));
        // Cancelled, failed as lost, or no longer ours (resumed by another replica): stop the call.
        for (const id of ids) if (held.get(id) !== "working") running.get(id)?.abort();
        return writeProgress(ctx);
      })
      .catch((error: unknown) => report("task heartbeat", error));
  }, BEAT_MS);
  beat.unref();
  let sweeps = 0;
  const sweep = setInterval(() => {
    const now = clock();
    sweepStale(ctx, now)
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
