// The WAL checkpointer's thread (checkpointer.ts starts it): its own connection to the store's
// file, which copies committed WAL frames into the database with PASSIVE checkpoints every
// `intervalMs`, so no commit on the host's event loop pays for a checkpoint (and the fsyncs it
// does). PASSIVE never waits for a reader or a writer: what a busy database does not let it
// copy now, a later round does. It reports a failed round (the host warns once) and exits when
// told to stop.
import { DatabaseSync } from "node:sqlite";
import { parentPort, workerData } from "node:worker_threads";

interface Setup {
  file: string;
  intervalMs: number;
  busyTimeoutMs: number;
}

const { file, intervalMs, busyTimeoutMs } = workerData as Setup;
const db = new DatabaseSync(file, { timeout: busyTimeoutMs });

function round(): void {
  try {
    db.prepare("PRAGMA wal_checkpoint(PASSIVE)").get();
  } catch (error) {
    parentPort?.postMessage({ error: error instanceof Error ? error.message : String(error) });
  }
}

const timer = setInterval(round, intervalMs);
parentPort?.on("message", (m: unknown) => {
  if (m !== "stop") return;
  clearInterval(timer);
  db.close();
  parentPort?.close();
});
