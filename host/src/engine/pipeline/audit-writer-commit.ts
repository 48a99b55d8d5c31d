// The audit writer's commit loop and the state it shares with the journal's grouping
// (audit-writer-journal.ts) and the writer's API (audit-writer.ts): the buffer of entries waiting
// for a commit, one drain at a time that writes it in batches of maxBatch, and the timers that
// start a drain — after this loop turn (schedule), within laterMs for journaled entries
// (scheduleLater), or after RETRY_MS once a journaled batch failed (retryLater).
// Without a journal a batch is one appendAuditBatch (all or none) and, when that fails, each
// entry gets its own appendAudit and settles its append() alone. With a journal a batch is one
// appendAuditBatch that also records the journal's mark; a failed one goes back whole to the
// buffer's head and `failed` is set until a batch commits.
// Invariants: at most one drain runs (`writing`); batches leave the buffer in append order and
// a failed journaled batch is retried before anything appended after it, never split or skipped;
// `inFlight` counts the batch being written; at most one of the timer and the setImmediate is
// pending; an entry appended while a drain was finishing gets a drain of its own.
import type { AuditInput, AuditJournal, Store } from "../../state/store/types.ts";

/** How long a failed journaled batch waits before it is tried again. */
const RETRY_MS = 100;

/** Store.appendAuditBatch (optional): writes all entries in one transaction, or none. */
export type AuditSink = Pick<Store, "appendAudit" | "appendAuditBatch">;

export interface Pending {
  entry: AuditInput;
  /** The entry's journal sequence number (0 without a journal). */
  seq: number;
  /** Without a journal: the append() awaiting the commit. */
  resolve(): void;
  reject(error: unknown): void;
}

/** One writer's settings and mutable state, handed to each piece of it. */
export interface WriterState {
  readonly sink: AuditSink;
  readonly journal: AuditJournal | undefined;
  readonly maxBatch: number;
  readonly maxBuffered: number;
  readonly laterMs: number;
  readonly onCommitError: (error: unknown) => void;
  /** Journal mode: writeGroup for this state, made once (queued once per group, no closure each time). */
  readonly writeGroupTask: () => void;
  /** Entries waiting for a commit, in append order. */
  buffer: Pending[];
  /** Journal mode: entries appended but not yet journaled (writeGroup), in append order. */
  group: Pending[];
  /** The drain running, if any. */
  writing: Promise<void> | null;
  /** Entries in the batch being written. */
  inFlight: number;
  /** A setImmediate drain is pending. */
  scheduled: boolean;
  /** A laterMs or RETRY_MS drain is pending. */
  timer: NodeJS.Timeout | null;
  /** With a journal: the last batch failed (it is back in the buffer, retried after RETRY_MS). */
  failed: boolean;
}

/** Journal mode: the batch and its mark in one transaction, or back to the buffer's head. */
async function writeJournaled(state: WriterState, batch: Pending[], journal: AuditJournal): Promise<void> {
  // entries are journaled in append order: the batch's last is its highest
  const seq = batch[batch.length - 1]!.seq;
  try {
    if (state.sink.appendAuditBatch === undefined) throw new Error("the store cannot commit a journal mark");
    await state.sink.appendAuditBatch(
      batch.map((p) => p.entry),
      { journal: journal.name, seq },
    );
  } catch (error) {
    state.failed = true;
    state.buffer = batch.concat(state.buffer);
    state.onCommitError(error);
    return;
  }
  state.failed = false;
  journal.committed(seq);
}

async function writeBatch(sink: AuditSink, batch: Pending[]): Promise<void> {
  if (batch.length > 1 && sink.appendAuditBatch !== undefined) {
    // One transaction: all committed, or none (then each entry gets its own attempt below).
    const committed = await sink.appendAuditBatch(batch.map((p) => p.entry)).then(
      () => true,
      () => false,
    );
    if (committed) {
      for (const p of batch) p.resolve();
      return;
    }
  }
  for (const p of batch) {
    try {
      await sink.appendAudit(p.entry);
      p.resolve();
    } catch (error) {
      p.reject(error);
    }
  }
}

/** Writes batches until the buffer is empty; only one drain runs at a time. */
export function drain(state: WriterState): Promise<void> {
  if (state.writing !== null) return state.writing;
  const { journal, maxBatch } = state;
  state.writing = (async () => {
    while (state.buffer.length > 0) {
      const buffer = state.buffer;
      const batch = buffer.length <= maxBatch ? buffer : buffer.slice(0, maxBatch);
      state.buffer = buffer.length <= maxBatch ? [] : buffer.slice(maxBatch);
      state.inFlight = batch.length;
      if (journal === undefined) await writeBatch(state.sink, batch);
      else await writeJournaled(state, batch, journal);
      state.inFlight = 0;
      if (state.failed) break;
    }
  })().finally(() => {
    state.writing = null;
    if (state.failed) {
      retryLater(state);
      return;
    }
    // An entry appended after the loop saw an empty buffer, but before this ran, needs a drain.
    if (state.buffer.length > 0) {
      if (journal === undefined) schedule(state);
      else scheduleLater(state);
    }
  });
  return state.writing;
}

/** A drain after the I/O callbacks of this loop turn: everything appended in them shares one commit. */
export function schedule(state: WriterState): void {
  if (state.scheduled || state.writing !== null) return;
  state.scheduled = true;
  if (state.timer !== null) clearTimeout(state.timer);
  state.timer = null;
  setImmediate(() => {
    state.scheduled = false;
    void drain(state);
  });
}

/** Journal mode: a drain within laterMs, or at once when a batch is already full. */
export function scheduleLater(state: WriterState): void {
  if (state.buffer.length >= state.maxBatch) {
    schedule(state);
    return;
  }
  if (state.scheduled || state.writing !== null || state.timer !== null) return;
  state.timer = setTimeout(() => {
    state.timer = null;
    void drain(state);
  }, state.laterMs);
}

function retryLater(state: WriterState): void {
  if (state.timer !== null) clearTimeout(state.timer);
  state.timer = setTimeout(() => {
    state.timer = null;
    void drain(state);
  }, RETRY_MS);
}
