// The audit file's writer thread (audit-thread.ts starts it): its own connection to audit.db,
// which commits each batch it is sent (its rows, and the journal mark when there is one) in one
// transaction (audit-commit.ts), and answers with the batch's id, or with the error that rolled
// it back. The host sends rows already turned into parameters (audit-rows.ts auditParams), so this
// file loads no store code beyond audit-commit.ts, connection.ts and tx.ts: the thread is up in
// the time a worker takes to start, without the store's modules (the SDK's import alone took
// ≈ 0.3–0.5 s in a new thread). The row inserts with their four index entries, the commit, and
// the WAL checkpoints SQLite runs inside a commit are spent here, off the host's event loop.
// Invariants: batches commit one at a time in the order sent; a batch is all in, or nothing;
// every batch is answered; on "stop" the connection closes after the batches before it.
import { DatabaseSync, type SQLInputValue } from "node:sqlite";
import { parentPort, workerData } from "node:worker_threads";
import { commitAuditBatch } from "./audit-commit.ts";
import { cacheStatements, type SqliteDurability, synchronousPragma } from "./connection.ts";

export interface WriterSetup {
  file: string;
  busyTimeoutMs: number;
  durability: SqliteDurability;
}

export interface BatchMessage {
  id: number;
  rows: SQLInputValue[][];
  mark?: { journal: string; seq: number };
}

export interface BatchAnswer {
  id: number;
  error?: { message: string; code?: string; errcode?: number };
}

/** Posted once the connection is open. */
export interface ReadyAnswer {
  ready: true;
}

const setup = workerData as WriterSetup;
const db = new DatabaseSync(setup.file, { timeout: setup.busyTimeoutMs });
db.exec(synchronousPragma(setup.durability));
cacheStatements(db);

const port = parentPort!;
port.postMessage({ ready: true } satisfies ReadyAnswer);
port.on("message", (m: BatchMessage | "stop") => {
  if (m === "stop") {
    db.close();
    port.close();
    return;
  }
  const answer: BatchAnswer = { id: m.id };
  try {
    commitAuditBatch(db, m.rows, m.mark);
  } catch (error) {
    const { code, errcode } = error as { code?: unknown; errcode?: unknown };
    answer.error = {
      message: error instanceof Error ? error.message : String(error),
      ...(typeof code === "string" ? { code } : {}),
      // SQLite's result code (SQLITE_FULL, SQLITE_BUSY…): the host tells a full disk by it
      ...(typeof errcode === "number" ? { errcode } : {}),
    };
  }
  port.postMessage(answer);
});
