// The PostgreSQL task queue: pg-boss (docs/deploy.md says why this one), in its own schema next
// to the store's (`<schema>_jobs`, or `airlock_jobs` on the default search_path). A job carries
// only the task id; the task row is the state. Every replica with `concurrency > 0` works the
// queue, so a task queued through one replica runs on whichever has room, and a task whose
// replica died before running it is still delivered.
// Invariants: a job is never retried (retryLimit 0): a call may have had effects, and a task
// whose replica dies mid-call is failed by the others, or resumed from its row by one of them
// when its tool is safe to run again (task-worker.ts), never replayed by the queue; a job expires
// after the task's wall ceiling plus a margin, so a worker never holds it forever; pg-boss starts
// in the background (createHost does not wait for its migrations), and enqueue waits for it.
import type { PgBoss } from "pg-boss";
import type { TaskQueue, TaskRunner } from "./queue.ts";

export const TASK_QUEUE = "airlock-tasks";

export interface PgBossQueueOptions {
  url: string;
  /** The store's schema; the queue's is `<schema>_jobs`. */
  schema: string | undefined;
  concurrency: number;
  run: TaskRunner;
  report: (what: string, error: unknown) => void;
}

export function jobSchemaFor(schema: string | undefined): string {
  return `${schema ?? "airlock"}_jobs`;
}

export function createPgBossQueue(options: PgBossQueueOptions): TaskQueue {
  let closed = false;
  // pg-boss is loaded only by a host on PostgreSQL (the embedded default never pays for it).
  const ready: Promise<PgBoss> = (async () => {
    const { PgBoss } = await import("pg-boss");
    const boss = new PgBoss({
      connectionString: options.url,
      schema: jobSchemaFor(options.schema),
      max: 3,
      schedule: false,
      useListenNotify: true,
      application_name: "airlock-tasks",
    });
    boss.on("error", (error: unknown) => options.report("task queue (pg-boss)", error));
    await boss.start();
    await boss.createQueue(TASK_QUEUE, { retryLimit: 0, notify: true, deleteAfterSeconds: 3600 });
    if (options.concurrency > 0 && !closed) {
      await boss.work<{ taskId: string }>(
        TASK_QUEUE,
        { localConcurrency: options.concurrency, batchSize: 1, pollingIntervalSeconds: 1 },
        async ([job]) => {
          if (job !== undefined) await options.run(job.data.taskId);
        },
      );
    }
    return boss;
  })();
  ready.catch((error: unknown) => options.report("starting the task queue (pg-boss)", error));
  return {
    kind: "pg-boss",
    async enqueue(taskId, expireInSeconds) {
      const boss = await ready;
      await boss.send(TASK_QUEUE, { taskId }, { expireInSeconds, singletonKey: taskId });
    },
    async close() {
      if (closed) return;
      closed = true;
      const boss = await ready.catch(() => undefined);
      await boss?.stop({ graceful: true, close: true, timeout: 15_000 });
    },
  };
}
