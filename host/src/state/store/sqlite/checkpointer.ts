// WAL checkpoints off the host's event loop. SQLite's automatic checkpoint runs inside the commit
// that crosses `wal_autocheckpoint` pages, on the thread that commits: with the host committing
// audit batches on its event loop, one commit in ≈ 1,000 pages also copied the WAL into the
// database and fsynced it (bench row 5: event-loop lag p99 5.3–5.5 ms with it, 3.3–3.8 ms
// without). The store's connection now checkpoints automatically only past BACKSTOP_PAGES (should
// this thread stop), and a worker thread with its own connection makes PASSIVE checkpoints every
// INTERVAL_MS (checkpointer-thread.ts).
// Invariants: a checkpoint never changes what a reader sees or what survives a crash (the WAL is
// the record until its frames are copied); stop() ends the thread before the store's connection
// closes (the last connection's close checkpoints what is left); a thread that fails is reported
// once through `onError` and the backstop keeps the WAL bounded.
import { Worker } from "node:worker_threads";

/** How often the thread checkpoints. */
const INTERVAL_MS = 100;
/** The store connection's own automatic checkpoint, a backstop: ≈ 40 MiB of WAL. */
export const BACKSTOP_PAGES = 10_000;

export interface Checkpointer {
  stop(): Promise<void>;
}

export function startCheckpointer(
  file: string,
  options: { busyTimeoutMs: number; onError: (message: string) => void },
): Checkpointer {
  const worker = new Worker(new URL("./checkpointer-thread.ts", import.meta.url), {
    workerData: { file, intervalMs: INTERVAL_MS, busyTimeoutMs: options.busyTimeoutMs },
  });
  worker.unref(); // never what keeps a process alive
  let reported = false;
  const report = (message: string) => {
    if (reported) return;
    reported = true;
    options.onError(message);
  };
  worker.on("message", (m: { error: string }) => report(`WAL checkpoint failed: ${m.error}`));
  worker.on("error", (error) => report(`WAL checkpointer stopped: ${error.message}`));
  const exited = new Promise<void>((resolve) => worker.once("exit", () => resolve()));
  let stopping: Promise<void> | null = null;
  return {
    stop() {
      stopping ??= (async () => {
        worker.postMessage("stop");
        const timer = setTimeout(() => void worker.terminate(), 2_000);
        await exited;
        clearTimeout(timer);
      })();
      return stopping;
    },
  };
}
