// The audit file's writer thread (audit-thread.ts starts it): its own connection to audit.db,
// which commits each batch it is sent (its entries, and the journal mark when there is one) in
// one transaction, and answers with the batch's id, or with the error that rolled it back.
// Everything an insert costs (time check, details sanitised and serialised, the row and its four
// index entries, the commit, the WAL checkpoints SQLite runs inside a commit) is spent here, off
// the host's event loop.
// Invariants: batches commit one at a time in the order sent; a batch is all in, or nothing;
// every batch is answered; on "stop" the connection closes after the batches before it.
import { DatabaseSync } from "node:sqlite";
import { parentPort, workerData } from "node:worker_threads";
import type { AuditInput, AuditJournalMark } from "../types.ts";
import { insert } from "./audit.ts";
import { recordMark } from "./audit-journal.ts";
import { cacheStatements, type SqliteDurability, synchronousPragma } from "./connection.ts";
import { immediate } from "./tx.ts";

interface Setup {
  file: string;
  busyTimeoutMs: number;
  durability: SqliteDurability;
}

export interface BatchMessage {
  id: number;
  entries: AuditInput[];
  mark?: AuditJournalMark;
}

export interface BatchAnswer {
  id: number;
  error?: { message: string; code?: string };
}

const { file, busyTimeoutMs, durability } = workerData as Setup;
const db = new DatabaseSync(file, { timeout: busyTimeoutMs });
db.exec(synchronousPragma(durability));
cacheStatements(db);

const port = parentPort!;
port.on("message", (m: BatchMessage | "stop") => {
  if (m === "stop") {
    db.close();
    port.close();
    return;
  }
  const answer: BatchAnswer = { id: m.id };
  try {
    immediate(db, () => {
      for (const e of m.entries) insert(db, e);
      if (m.mark !== undefined) recordMark(db, m.mark);
    });
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    answer.error = {
      message: error instanceof Error ? error.message : String(error),
      ...(typeof code === "string" ? { code } : {}),
    };
  }
  port.postMessage(answer);
});
