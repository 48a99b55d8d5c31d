// WAL checkpoints off the host's event loop. SQLite's automatic checkpoint runs inside the commit
// that crosses `wal_autocheckpoint` pages, on the thread that commits: with the host committing
// audit batches on its event loop, one commit in ≈ 1,000 pages also copied the WAL into the
// database and fsynced it (bench row 5: event-loop lag p99 5.3–5.5 ms with it, 3.3–3.8 ms
// without). The store's connection now checkpoints automatically only past BACKSTOP_PAGES (should
// this thread stop), and a worker thread with its own connection makes PASSIVE checkpoints every
// INTERVAL_MS (checkpointer-thread.ts), started START_DELAY_MS after the store opens.
// Invariants: a checkpoint never changes what a reader sees or what survives a crash (the WAL is
// the record until its frames are copied); stop() ends the thread before the store's connection
// closes (the last connection's close checkpoints what is left); a thread that fails is reported
// once through `onError` and the backstop keeps the WAL bounded.
import { Worker } from "node:worker_threads";

/** How often the thread checkpoints. */
const INTERVAL_MS = 100;
/**
 * How long after the store opens the thread starts. Not at once: starting a thread costs about as
 * much CPU as a host's own start (a Node environment, the TypeScript of its file), which on a
 * 2-core machine delayed `airlock mcp`'s first answer; a short-lived process (a CLI command)
 * never starts it. Until it runs, the backstop bounds the WAL.
 */
const START_DELAY_MS = 1_000;
/** The store connection's own automatic checkpoint, a backstop: ≈ 40 MiB of WAL. */
export const BACKSTOP_PAGES = 10_000;

export interface Checkpointer {
  stop(): Promise<void>;
}

export function startCheckpointer(
  file: string,
  options: { busyTimeoutMs: number; onError: (message: string) => void },
): Checkpointer {
  let reported = false;
  const report = (message: string) => {
    if (reported) return;
    reported = true;
    options.onError(message);
  };
  let worker: Worker | null = null;
  let exited: Promise<void> = Promise.resolve();
  const timer = setTimeout(() => {
    const w = new Worker(new URL("./checkpointer-thread.ts", import.meta.url), {
      workerData: { file, intervalMs: INTERVAL_MS, busyTimeoutMs: options.busyTimeoutMs },
    });
    w.unref(); // never what keeps a process alive
    w.on("message", (m: { error: string }) => report(`WAL checkpoint failed: ${m.error}`));
    w.on("error", (error) => report(`WAL checkpointer stopped: ${error.message}`));
    exited = new Promise<void>((resolve) => w.once("exit", () => resolve()));
    worker = w;
  }, START_DELAY_MS);
  timer.unref();
  let stopping: Promise<void> | null = null;
  return {
    stop() {
      stopping ??= (async () => {
        clearTimeout(timer);
        const w = worker as Worker | null;
        if (w === null) return;
        w.postMessage("stop");
        const kill = setTimeout(() => void w.terminate(), 2_000);
        await exited;
        clearTimeout(kill);
      })();
      return stopping;
    },
  };
}
