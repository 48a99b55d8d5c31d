// The task service behind AirlockHost.tasks: a long-running call recorded as a row in the store
// (store/task-types.ts), handed to the job queue (./queue.ts), run by a replica's worker through
// the host's own pipeline (enablement, secrets, hooks, approvals, validation, sandbox, audit),
// its outcome written back to the row. Any replica answers get / wait / list / cancel from rows.
// Liveness: while a replica runs tasks it refreshes their rows every BEAT_MS, and reads back
// their statuses (a cancel made through another replica aborts the call here within one beat);
// every replica fails, with AIRLOCK_TASK_REPLICA_LOST, a claimed task silent for `staleMs`.
// Invariants: start() answers only once the row is committed (a tasks/get anywhere finds it);
// a task call runs under the tool's task wall ceiling (settings), which the sandbox enforces in
// place of the plugin's wallMs (CallOptions.wallMs), with this service's own timer a backstop
// WALL_BACKSTOP_MS later for the stages before the sandbox; a settled row never changes
// (cancel after completion answers the completed task); close() aborts this replica's running
// calls and fails their tasks with AIRLOCK_TASK_HOST_STOPPED before the store closes.
import { randomUUID } from "node:crypto";
import type { CallOptions, RunOptions, ToolCallOutcome } from "../../contracts/host.ts";
import type { TaskRow, TaskSettlement, TaskStore } from "../../state/store/task-types.ts";
import type { AuditInput } from "../../state/store/types.ts";
import type { TaskQueue, TaskRunner } from "./queue.ts";
import type { HostTasks, TaskSettings, TaskStartOptions, TaskView } from "./types.ts";
import { decodeTaskCursor, encodeTaskCursor, splitId, taskView } from "./views.ts";

/** How often a replica refreshes the rows of the tasks it runs (and reads back cancellations). */
export const BEAT_MS = 250;
/** How long after the ceiling this service aborts a task call the sandbox did not stop itself. */
export const WALL_BACKSTOP_MS = 1000;
const PAGE = 50;
const SWEEPS_PER_PRUNE = 60;

export const DEFAULT_TASK_SETTINGS: Readonly<TaskSettings> = Object.freeze({
  ttlMs: 60 * 60_000,
  wallMs: 10 * 60_000,
  toolWallMs: {},
  pollIntervalMs: 500,
  concurrency: 4,
});

type Call = (
  agent: string,
  toolName: string,
  input: unknown,
  options: CallOptions & RunOptions,
) => Promise<ToolCallOutcome>;

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
  /** Where refusals (a task unknown to the agent) and cancellations are audited. */
  audit: (entry: AuditInput) => Promise<void>;
  report: (what: string, error: unknown) => void;
  /** A task ended here (settled or cancelled): the host's `task.status` event. */
  onStatus?: (agent: string, id: string) => void;
  clock?: () => number;
}

/** What start() records of the call besides its input (TaskRow.options). */
interface StoredOptions {
  tools?: string[];
  groups?: string[];
  harness?: string[];
  autoApprove?: boolean;
  trace?: { traceparent: string; tracestate?: string };
  /** The end user the call is for (CallOptions.subject); the pipeline checks it when the task runs. */
  subject?: string;
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
  /** A task operation audited: kind "tool", action task.<op>; a refusal names its code. */
  const audited = async (agent: string, op: string, id: string, row: TaskRow | null, refused?: string) => {
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
      .catch((error: unknown) => report(`auditing task.${op}`, error));
  };

  const run: TaskRunner = async (id) => {
    if (closing) return;
    const claimed = await store.claimTask(id, replica, clock());
    if (claimed === null) return; // cancelled, expired, or another delivery already runs it
    const controller = new AbortController();
    running.set(id, controller);
    const wallMs = wallFor(claimed.toolName);
    let pastWall = false;
    const timer = setTimeout(() => {
      pastWall = true;
      controller.abort();
    }, wallMs + WALL_BACKSTOP_MS);
    const stored = claimed.options as StoredOptions;
    let settlement: TaskSettlement;
    try {
      const outcome = await options.call(claimed.agent, claimed.toolName, claimed.input, {
        agent: claimed.agent,
        conversationId: claimed.conversationId,
        signal: controller.signal,
        // The sandbox's per-call deadline is the task's ceiling, not the plugin's wallMs.
        wallMs,
        ...(stored.tools === undefined ? {} : { tools: stored.tools }),
        ...(stored.groups === undefined ? {} : { groups: stored.groups }),
        ...(stored.harness === undefined ? {} : { harness: stored.harness }),
        ...(stored.autoApprove === undefined ? {} : { autoApprove: stored.autoApprove }),
        ...(stored.trace === undefined ? {} : { trace: stored.trace }),
        ...(typeof stored.subject === "string" ? { subject: stored.subject } : {}),
      });
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
    if (closing && controller.signal.aborted && !pastWall) {
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
    wake(id);
    if (settled !== null && settled !== undefined) options.onStatus?.(claimed.agent, id);
  };
  const queue = options.queue(run);

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
        now - options.staleMs,
        "AIRLOCK_TASK_REPLICA_LOST",
        `the replica running the task gave no sign of life for ${options.staleMs} ms`,
        now,
      )
      .then((ids) => {
        for (const id of ids) wake(id);
        if (++sweeps % SWEEPS_PER_PRUNE === 0) return store.pruneTasks(now);
        return 0;
      })
      .catch((error: unknown) => report("task sweep", error));
  }, options.sweepMs);
  sweep.unref();

  const service: HostTasks = {
    async start(agent, toolName, input, startOptions: TaskStartOptions = {}) {
      const now = clock();
      const ttlMs = Math.max(1000, Math.min(settings.ttlMs, startOptions.ttlMs ?? settings.ttlMs));
      const stored: StoredOptions = {};
      if (startOptions.tools !== undefined) stored.tools = startOptions.tools;
      if (startOptions.groups !== undefined) stored.groups = startOptions.groups;
      if (startOptions.harness !== undefined) stored.harness = startOptions.harness;
      if (startOptions.autoApprove !== undefined) stored.autoApprove = startOptions.autoApprove;
      if (startOptions.trace !== undefined) stored.trace = startOptions.trace;
      if (startOptions.subject !== undefined) stored.subject = startOptions.subject;
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
        await new Promise<void>((resolve) => {
          const done = () => {
            clearTimeout(timer);
            signal?.removeEventListener("abort", done);
            waiters.get(id)?.delete(done);
            resolve();
          };
          const timer = setTimeout(done, Math.min(settings.pollIntervalMs, BEAT_MS));
          signal?.addEventListener("abort", done, { once: true });
          const set = waiters.get(id) ?? new Set<() => void>();
          waiters.set(id, set);
          set.add(done);
        });
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
      clearInterval(beat);
      clearInterval(sweep);
      for (const controller of running.values()) controller.abort();
      await queue.close().catch((error: unknown) => report("closing the task queue", error));
    },
  };
  return service;
}
