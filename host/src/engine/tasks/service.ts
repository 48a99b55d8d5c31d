// The task service behind AirlockHost.tasks: a long-running call recorded as a row in the store
// (store/task-types.ts), handed to the job queue (./queue.ts), run by a replica's worker through
// the host's own pipeline (enablement, secrets, hooks, approvals, validation, sandbox, audit),
// its outcome written back to the row. Any replica answers get / wait / list / cancel from rows.
// Liveness: while a replica runs tasks it refreshes their rows every BEAT_MS, and reads back
// their statuses (a cancel made through another replica aborts the call here within one beat);
// a claimed task silent for `staleMs` is resumed by a replica with room when its tool is safe to
// run again (./resumable.ts, at most `resumeLimit` times), else failed by every replica with
// AIRLOCK_TASK_REPLICA_LOST.
// Invariants: start() answers only once the row is committed (a tasks/get anywhere finds it);
// a task call runs under the tool's task wall ceiling (settings), which the sandbox enforces in
// place of the plugin's wallMs (CallOptions.wallMs), with this service's own timer a backstop
// WALL_BACKSTOP_MS later for the stages before the sandbox; a settled row never changes
// (cancel after completion answers the completed task); close() aborts this replica's running
// calls and fails their tasks with AIRLOCK_TASK_HOST_STOPPED before the store closes.
// Layout: this file answers the operations from rows; task-worker.ts runs the tasks claimed here
// and keeps their rows alive (heartbeat, sweep).
import { randomUUID } from "node:crypto";
import type { TaskRow, TaskStore } from "../../state/store/task-types.ts";
import type { AuditInput } from "../../state/store/types.ts";
import type { TaskQueue, TaskRunner } from "./queue.ts";
import {
  BEAT_MS,
  type Call,
  runTask,
  type StoredOptions,
  startTaskLiveness,
  type TaskWorkerContext,
} from "./task-worker.ts";
import type { HostTasks, TaskSettings, TaskStartOptions, TaskView } from "./types.ts";
import { decodeTaskCursor, encodeTaskCursor, splitId, taskView } from "./views.ts";

export { BEAT_MS, WALL_BACKSTOP_MS } from "./task-worker.ts";

const PAGE = 50;

export const DEFAULT_TASK_SETTINGS: Readonly<TaskSettings> = Object.freeze({
  ttlMs: 60 * 60_000,
  wallMs: 10 * 60_000,
  toolWallMs: {},
  pollIntervalMs: 500,
  concurrency: 4,
  resumeLimit: 2,
});

export interface TaskServiceOptions {
  store: TaskStore;
  replica: string;
  settings: TaskSettings;
  /** A replica silent this long is dead: its running tasks fail. */
  staleMs: number;
  /** How often this replica looks for dead replicas' tasks (the cluster heartbeat). */
  sweepMs: number;
  queue: (run: TaskRunner) => TaskQueue;
  call: Call;
  /** Whether a task of this tool may be run again by another replica (./resumable.ts on the catalogue). */
  resumable: (toolName: string) => boolean;
  /** Where refusals (a task unknown to the agent) and cancellations are audited. */
  audit: (entry: AuditInput) => Promise<void>;
  report: (what: string, error: unknown) => void;
  /** A task ended here (settled or cancelled): the host's `task.status` event. */
  onStatus?: (agent: string, id: string) => void;
  clock?: () => number;
}

/** What start() records of the call besides its input. */
function storedOptionsOf(startOptions: TaskStartOptions): StoredOptions {
  const stored: StoredOptions = {};
  if (startOptions.tools !== undefined) stored.tools = startOptions.tools;
  if (startOptions.groups !== undefined) stored.groups = startOptions.groups;
  if (startOptions.harness !== undefined) stored.harness = startOptions.harness;
  if (startOptions.autoApprove !== undefined) stored.autoApprove = startOptions.autoApprove;
  if (startOptions.trace !== undefined) stored.trace = startOptions.trace;
  if (startOptions.subject !== undefined) stored.subject = startOptions.subject;
  return stored;
}

/** Resolves when task `id` is woken on this replica, after `ms`, or when `signal` aborts. */
function nextWake(
  waiters: Map<string, Set<() => void>>,
  id: string,
  ms: number,
  signal: AbortSignal | undefined,
): Promise<void> {
  return new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      waiters.get(id)?.delete(done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener("abort", done, { once: true });
    const set = waiters.get(id) ?? new Set<() => void>();
    waiters.set(id, set);
    set.add(done);
  });
}

/** A task operation audited: kind "tool", action task.<op>; a refusal names its code. */
function taskAuditor(options: Pick<TaskServiceOptions, "audit" | "report">) {
  return async (agent: string, op: string, id: string, row: TaskRow | null, refused?: string) => {
    const [plugin, tool] = row === null ? [null, null] : splitId(row.toolName);
    await options
      .audit({
        agent,
        plugin,
        tool,
        conversationId: row?.conversationId ?? null,
        kind: "tool",
        action: `task.${op}`,
        allowed: refused === undefined,
        success: refused === undefined,
        error: refused ?? null,
        durationMs: null,
        details: { taskId: id.slice(0, 200) },
      })
      .catch((error: unknown) => options.report(`auditing task.${op}`, error));
  };
}

export function createTaskService(options: TaskServiceOptions): HostTasks {
  const { store, replica, settings, report } = options;
  const clock = options.clock ?? Date.now;
  const running = new Map<string, AbortController>();
  const waiters = new Map<string, Set<() => void>>();
  let closing = false;

  const view = (row: TaskRow): TaskView => taskView(row, settings.pollIntervalMs);
  const wake = (id: string) => {
    for (const resolve of waiters.get(id) ?? []) resolve();
    waiters.delete(id);
  };
  const wallFor = (toolName: string) => settings.toolWallMs[toolName] ?? settings.wallMs;
  const audited = taskAuditor(options);

  const worker: TaskWorkerContext = {
    store,
    replica,
    call: options.call,
    staleMs: options.staleMs,
    sweepMs: options.sweepMs,
    report,
    onStatus: options.onStatus,
    clock,
    running,
    wake,
    wallFor,
    closing: () => closing,
    concurrency: settings.concurrency,
    resumeLimit: settings.resumeLimit,
    resumable: options.resumable,
    progress: new Map(),
    resumed: new Set(),
    audit: options.audit,
  };
  const queue = options.queue((id) => runTask(worker, id));
  const stopLiveness = startTaskLiveness(worker);

  const service: HostTasks = {
    async start(agent, toolName, input, startOptions: TaskStartOptions = {}) {
      const now = clock();
      const ttlMs = Math.max(1000, Math.min(settings.ttlMs, startOptions.ttlMs ?? settings.ttlMs));
      const stored = storedOptionsOf(startOptions);
      const id = randomUUID();
      await store.insertTask({
        id,
        agent,
        toolName,
        conversationId: startOptions.conversationId ?? `tasks-${agent}`,
        input: (input ?? {}) as Record<string, unknown>,
        options: stored as Record<string, unknown>,
        createdAt: now,
        ttlMs,
        resumable: options.resumable(toolName),
      });
      try {
        await queue.enqueue(id, Math.ceil(wallFor(toolName) / 1000) + 60);
      } catch (error) {
        report(`queueing task ${id}`, error);
        await store.settleTask(
          id,
          {
            status: "failed",
            errorCode: "AIRLOCK_TASK_QUEUE_FAILED",
            errorMessage: "the task could not be handed to the job queue; nothing ran",
          },
          clock(),
        );
      }
      const row = await store.getTask(agent, id, clock());
      if (row === null) throw new Error(`task ${id} vanished right after it was recorded`);
      return view(row);
    },
    async get(agent, id) {
      const row = await store.getTask(agent, id, clock());
      if (row === null) await audited(agent, "get", id, null, "AIRLOCK_TASK_NOT_FOUND");
      return row === null ? null : view(row);
    },
    async wait(agent, id, signal) {
      for (;;) {
        const row = await store.getTask(agent, id, clock());
        if (row === null) {
          await audited(agent, "result", id, null, "AIRLOCK_TASK_NOT_FOUND");
          return null;
        }
        if (row.status !== "working" || signal?.aborted === true) return view(row);
        // Woken at once when this replica settles it; otherwise re-read after a poll interval.
        await nextWake(waiters, id, Math.min(settings.pollIntervalMs, BEAT_MS), signal);
      }
    },
    async list(agent, cursor) {
      let after: { createdAt: number; id: string } | null = null;
      if (cursor !== undefined) {
        after = decodeTaskCursor(cursor);
        if (after === null)
          throw Object.assign(new Error("invalid cursor: list again without one"), {
            code: "invalid_cursor",
          });
      }
      const rows = await store.listTasks(agent, clock(), after, PAGE + 1);
      const page = rows.slice(0, PAGE);
      const last = page.at(-1);
      return {
        tasks: page.map(view),
        ...(rows.length > PAGE && last !== undefined ? { nextCursor: encodeTaskCursor(last) } : {}),
      };
    },
    async cancel(agent, id) {
      const outcome = await store.cancelTask(agent, id, "cancelled at the client's request", clock());
      if (outcome === null) {
        await audited(agent, "cancel", id, null, "AIRLOCK_TASK_NOT_FOUND");
        return null;
      }
      await audited(
        agent,
        "cancel",
        id,
        outcome.row,
        outcome.cancelled ? undefined : "AIRLOCK_TASK_TERMINAL",
      );
      if (outcome.cancelled) {
        running.get(id)?.abort(); // here at once; another replica within one beat
        wake(id);
        options.onStatus?.(agent, id);
      }
      return { task: view(outcome.row), cancelled: outcome.cancelled };
    },
    queueDepth: () => store.countQueuedTasks(),
    running: () => running.size,
    async close() {
      if (closing) return;
      closing = true;
      stopLiveness();
      for (const controller of running.values()) controller.abort();
      await queue.close().catch((error: unknown) => report("closing the task queue", error));
      await Promise.allSettled([...worker.resumed]);
    },
  };
  return service;
}
