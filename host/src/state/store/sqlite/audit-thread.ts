// The host's side of the audit file's writer thread (audit-writer-thread.ts): `write` sends one
// batch and resolves once it is committed, or rejects with the error that rolled it back (a
// store error keeps its AIRLOCK_* code). The host's audit writer (pipeline/audit-writer.ts)
// gathers the batches; this moves their commit off the event loop, so the host thread spends on
// a batch only its rows' parameters (time checked, details sanitised and serialised) and their
// structured clone.
// The thread starts with the first batch; until it has its connection, batches commit on the
// caller's thread through `direct` (the host's connection), so a short-lived process (a CLI command)
// does not wait for a thread to start (≈ 0.1 s on the 2-core AMD VM). A thread that dies (a
// failed start, an error outside its per-batch try) fails the batches it held, and the next
// write starts a new one; the audit writer retries a failed batch, so a batch the thread had
// committed before dying, unanswered, would be written twice. The thread has no such path in
// use: every batch is answered from a try/catch, and it is terminated only by stop() (after the
// writer's flush, past STOP_MS).
// Invariants: batches are sent and committed in the order written; every write settles; the
// thread keeps the process alive only while a batch is in flight; stop() ends it after the
// batches written before.
import type { SQLInputValue } from "node:sqlite";
import { Worker } from "node:worker_threads";
import { STORE_ERRORS, storeError } from "../errors.ts";
import type { AuditInput, AuditJournalMark } from "../types.ts";
import { auditParams } from "./audit-rows.ts";
import type { BatchAnswer, BatchMessage, ReadyAnswer, WriterSetup } from "./audit-writer-thread.ts";
import type { SqliteDurability } from "./connection.ts";

export interface AuditThread {
  write(entries: readonly AuditInput[], mark?: AuditJournalMark): Promise<void>;
  stop(): Promise<void>;
}

interface InFlight {
  resolve(): void;
  reject(error: unknown): void;
}

const ENTRY = new URL("./audit-writer-thread.ts", import.meta.url);
/** How long stop() waits for the thread to finish before terminating it. */
const STOP_MS = 5_000;

function answerError(error: NonNullable<BatchAnswer["error"]>): Error {
  if (error.code !== undefined && Object.hasOwn(STORE_ERRORS, error.code)) {
    return storeError(error.code as keyof typeof STORE_ERRORS, error.message);
  }
  return Object.assign(
    new Error(error.message),
    error.code === undefined ? {} : { code: error.code },
    error.errcode === undefined ? {} : { errcode: error.errcode },
  );
}

/** Commits one batch on the caller's thread (the host's connection to the file). */
export type DirectWrite = (rows: SQLInputValue[][], mark?: AuditJournalMark) => void;

export function startAuditThread(
  file: string,
  options: { busyTimeoutMs: number; durability: SqliteDurability; direct?: DirectWrite },
): AuditThread {
  const inFlight = new Map<number, InFlight>();
  let nextId = 1;
  let worker: Worker | null = null;
  /** The thread has its connection: batches go there (before, `direct` commits them). */
  let ready = false;
  let stopped: Promise<void> | null = null;

  function spawn(): Worker {
    const setup: WriterSetup = { file, busyTimeoutMs: options.busyTimeoutMs, durability: options.durability };
    const w = new Worker(ENTRY, { workerData: setup });
    w.unref();
    w.on("message", (answer: BatchAnswer | ReadyAnswer) => {
      if ("ready" in answer) {
        if (worker === w) ready = true;
        return;
      }
      const batch = inFlight.get(answer.id);
      if (batch === undefined) return;
      inFlight.delete(answer.id);
      if (inFlight.size === 0) w.unref();
      if (answer.error === undefined) batch.resolve();
      else batch.reject(answerError(answer.error));
    });
    const gone = (reason: string) => {
      if (worker !== w) return;
      worker = null;
      ready = false;
      const error = new Error(`the audit writer thread stopped (${reason}); its batches are not committed`);
      for (const batch of inFlight.values()) batch.reject(error);
      inFlight.clear();
    };
    w.on("error", (error) => gone(error.message));
    w.on("exit", (code) => gone(`exit code ${code}`));
    return w;
  }

  // started by the first batch, not with the store: a process that writes no audit entry (a CLI
  // command that only reads) starts no thread, and `airlock mcp` answers its first request
  // without one competing for the CPU; until it is ready, batches commit through `direct`
  return {
    write(entries, mark) {
      if (stopped !== null) return Promise.reject(new Error("the audit writer thread is stopped"));
      worker ??= spawn();
      const w = worker;
      const direct = options.direct;
      if (!ready && direct !== undefined) {
        // the thread is still starting (no batch of it is in flight): this one commits here, so
        // a short-lived process does not wait for it; batches are sequential, so order holds
        try {
          direct(entries.map(auditParams), mark);
          return Promise.resolve();
        } catch (error) {
          return Promise.reject(error);
        }
      }
      const id = nextId++;
      return new Promise<void>((resolve, reject) => {
        try {
          // parameters made here: a bad entry fails the batch before it leaves (all or nothing)
          const message: BatchMessage = { id, rows: entries.map(auditParams) };
          if (mark !== undefined) message.mark = { journal: mark.journal, seq: mark.seq };
          w.postMessage(message);
        } catch (error) {
          reject(error);
          return;
        }
        if (inFlight.size === 0) w.ref();
        inFlight.set(id, { resolve, reject });
      });
    },
    stop() {
      stopped ??= (async () => {
        const w = worker;
        if (w === null) return;
        const exited = new Promise<void>((resolve) => w.once("exit", () => resolve()));
        w.postMessage("stop");
        const timer = setTimeout(() => void w.terminate(), STOP_MS);
        await exited;
        clearTimeout(timer);
      })();
      return stopped;
    },
  };
}
