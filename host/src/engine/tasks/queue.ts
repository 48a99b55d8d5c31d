// Where a task waits until a replica runs it. Two implementations behind one interface: the
// in-process queue of the embedded SQLite store (one process; a task runs where it started)
// and pg-boss on PostgreSQL (./pg-boss-queue.ts; any replica's worker picks it up, so a task
// queued on a replica that dies is run by another).
// Invariants: `run(taskId)` is called at most `concurrency` times at once per process; a task id
// handed to enqueue reaches `run` at least once while some worker lives (run claims the row, so a
// second delivery does nothing); close() stops taking work and resolves once running calls ended.

export type TaskRunner = (taskId: string) => Promise<void>;

export interface TaskQueue {
  readonly kind: "in-process" | "pg-boss";
  /** Hands the task to a worker; `expireInSeconds` bounds how long a worker may hold it. */
  enqueue(taskId: string, expireInSeconds: number): Promise<void>;
  close(): Promise<void>;
}

/** The embedded default: tasks run in this process, at most `concurrency` at once, in order. */
export function createInProcessQueue(run: TaskRunner, concurrency: number): TaskQueue {
  const limit = Math.max(1, concurrency);
  const waiting: string[] = [];
  const active = new Set<Promise<void>>();
  let closed = false;
  const pump = () => {
    while (!closed && active.size < limit && waiting.length > 0) {
      const id = waiting.shift() as string;
      const job = run(id).finally(() => {
        active.delete(job);
        pump();
      });
      active.add(job);
    }
  };
  return {
    kind: "in-process",
    async enqueue(taskId) {
      waiting.push(taskId);
      setImmediate(pump);
    },
    async close() {
      closed = true;
      waiting.length = 0;
      await Promise.allSettled([...active]);
    },
  };
}
