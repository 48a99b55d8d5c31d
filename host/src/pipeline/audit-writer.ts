// Group commit for the audit trail: entries appended while the event loop is busy (the same
// tick, or while a previous batch is being written) are written together in one transaction
// (SQLite) or one multi-row INSERT (PostgreSQL) through the store's optional appendAuditBatch.
// Two ways in: append() resolves once the entry is committed (rejects when it could not be, so
// a caller that refuses on audit failure still can); appendLater() resolves once the entry is
// buffered and commits it within `laterMs` (a failure goes to `onLaterError`), so a batch can
// gather several calls' entries and the commit runs while the next call is in flight.
// With a journal (SQLite: store.openAuditJournal, store/sqlite/audit-journal.ts) append() writes
// the entry to the journal first, one write(2) on this thread, and resolves then: the entry is as
// durable as a commit already (a killed process loses nothing; the next open replays it), so a
// capability call answers without waiting for SQLite; it commits within `laterMs` in a batch
// that records the journal's mark. appendLater() entries are not journaled (as without one). A
// batch that fails is retried whole (after RETRY_MS), never split or skipped, so the table
// receives every journaled entry once and in order.
// Invariants: nothing is dropped; entries are written in append order, one batch at a time; a
// full buffer makes both ways wait (back-pressure) instead of growing without bound (with a
// journal, a full buffer whose last commit failed refuses the entry instead); flush()
// resolves once everything appended before it is committed (with a journal: or has failed once;
// it stays in the journal), and the wrapped store's queryAudit() and close() flush first.
import type { AuditInput, AuditJournal, AuditQuery, AuditRecord, Store } from "../store/types.ts";

export interface AuditWriterOptions {
  /** Entries written per batch; default 512. */
  maxBatch?: number;
  /** Entries buffered before append() waits for a batch to commit; default 8192. */
  maxBuffered?: number;
  /** How long an appendLater() entry may wait for its batch; default 2 ms. */
  laterMs?: number;
  /** Where a failed appendLater() commit is reported (with a journal: every failed commit). */
  onLaterError?: (error: unknown) => void;
  /** Makes entries durable before they commit (see the header); the writer closes it on close. */
  journal?: AuditJournal;
}

/** How long a failed journaled batch waits before it is tried again. */
const RETRY_MS = 100;

export interface AuditWriter {
  append(entry: AuditInput): Promise<void>;
  /** Resolves once buffered (at once unless the buffer is full); committed within laterMs. */
  appendLater(entry: AuditInput): Promise<void>;
  /** Resolves once every entry appended before this call is committed (or has failed). */
  flush(): Promise<void>;
  /** Entries buffered or being written right now. */
  readonly pending: number;
  /** Closes the journal (after flush): deleted when all is committed, else kept for replay. */
  close(): void;
}

/** Store.appendAuditBatch (optional): writes all entries in one transaction, or none. */
type AuditSink = Pick<Store, "appendAudit" | "appendAuditBatch">;

interface Pending {
  entry: AuditInput;
  /** The entry's journal sequence number (0 without a journal). */
  seq: number;
  resolve(): void;
  reject(error: unknown): void;
}

const settled = (): void => undefined;

export function createAuditWriter(sink: AuditSink, options: AuditWriterOptions = {}): AuditWriter {
  const maxBatch = Math.max(1, options.maxBatch ?? 512);
  const maxBuffered = Math.max(maxBatch, options.maxBuffered ?? 8192);
  let buffer: Pending[] = [];
  let writing: Promise<void> | null = null;
  let inFlight = 0;
  let scheduled = false;
  /** An append() (someone awaiting the commit) is in the buffer. */
  let urgent = false;
  let timer: NodeJS.Timeout | null = null;
  const laterMs = options.laterMs ?? 2;
  const onLaterError = options.onLaterError ?? (() => undefined);
  const journal = options.journal;
  /** With a journal: the last batch failed (it is back in the buffer, retried after RETRY_MS). */
  let failed = false;

  /** Journal mode: the batch and its mark in one transaction, or back to the buffer's head. */
  async function writeJournaled(batch: Pending[], journal: AuditJournal): Promise<void> {
    // the highest journaled entry of the batch (appendLater entries are not journaled: seq 0)
    let seq = 0;
    for (const p of batch) if (p.seq > seq) seq = p.seq;
    try {
      if (sink.appendAuditBatch === undefined) throw new Error("the store cannot commit a journal mark");
      const entries = batch.map((p) => p.entry);
      await (seq === 0
        ? sink.appendAuditBatch(entries)
        : sink.appendAuditBatch(entries, { journal: journal.name, seq }));
    } catch (error) {
      failed = true;
      buffer = batch.concat(buffer);
      onLaterError(error);
      return;
    }
    failed = false;
    for (const p of batch) p.resolve();
    if (seq > 0) journal.committed(seq);
  }

  async function writeBatch(batch: Pending[]): Promise<void> {
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
  function drain(): Promise<void> {
    if (writing !== null) return writing;
    writing = (async () => {
      while (buffer.length > 0) {
        urgent = false;
        const batch = buffer.length <= maxBatch ? buffer : buffer.slice(0, maxBatch);
        buffer = buffer.length <= maxBatch ? [] : buffer.slice(maxBatch);
        inFlight = batch.length;
        if (journal === undefined) await writeBatch(batch);
        else await writeJournaled(batch, journal);
        inFlight = 0;
        if (failed) break;
      }
    })().finally(() => {
      writing = null;
      if (failed) {
        retryLater();
        return;
      }
      // An entry appended after the loop saw an empty buffer, but before this ran, needs a drain.
      if (buffer.length > 0) {
        if (urgent) schedule();
        else scheduleLater();
      }
    });
    return writing;
  }

  function schedule(): void {
    if (scheduled || writing !== null) return;
    scheduled = true;
    if (timer !== null) clearTimeout(timer);
    timer = null;
    // After the I/O callbacks of this loop turn: everything appended in them shares one commit.
    setImmediate(() => {
      scheduled = false;
      void drain();
    });
  }

  function scheduleLater(): void {
    if (buffer.length >= maxBatch) {
      schedule();
      return;
    }
    if (scheduled || writing !== null || timer !== null) return;
    timer = setTimeout(() => {
      timer = null;
      void drain();
    }, laterMs);
  }

  function retryLater(): void {
    if (timer !== null) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = null;
      void drain();
    }, RETRY_MS);
  }

  function enqueue(entry: AuditInput): Promise<void> {
    return new Promise<void>((resolve, reject) => buffer.push({ entry, seq: 0, resolve, reject }));
  }

  /** Journal mode: durable once written; committed within laterMs (or retried). */
  async function journaled(journal: AuditJournal, entry: AuditInput): Promise<void> {
    while (buffer.length >= maxBuffered) {
      if (failed) throw new Error("the audit trail cannot be committed (its backlog is full)");
      await drain();
    }
    const written = journal.write(entry);
    buffer.push({ entry: written.entry, seq: written.seq, resolve: settled, reject: settled });
    if (!failed) scheduleLater();
  }

  return {
    async append(entry) {
      if (journal !== undefined) return journaled(journal, entry);
      while (buffer.length >= maxBuffered) await drain();
      const done = enqueue(entry);
      urgent = true;
      schedule();
      return done;
    },
    async appendLater(entry) {
      while (buffer.length >= maxBuffered) {
        if (journal !== undefined && failed)
          throw new Error("the audit trail cannot be committed (its backlog is full)");
        await drain();
      }
      enqueue(entry).catch(onLaterError);
      scheduleLater();
    },
    async flush() {
      if (timer !== null && failed) {
        // a commit failed: try once more now; what still fails stays journaled
        clearTimeout(timer);
        timer = null;
      }
      while (buffer.length > 0 || writing !== null) {
        await drain();
        if (failed) return;
      }
    },
    close() {
      journal?.close(buffer.length === 0 && writing === null);
    },
    get pending() {
      return buffer.length + inFlight;
    },
  };
}

/**
 * The store as the host uses it: appendAudit goes through `writer`; queryAudit and close flush
 * it first, so a query sees every entry appended before it and closing loses none.
 */
export function withAuditWriter(store: Store, writer: AuditWriter): Store {
  const wrapped: Store = Object.create(store) as Store;
  return Object.assign(wrapped, {
    appendAudit: (entry: AuditInput) => writer.append(entry),
    async queryAudit(query: AuditQuery): Promise<AuditRecord[]> {
      await writer.flush();
      return store.queryAudit(query);
    },
    async close(): Promise<void> {
      await writer.flush();
      writer.close();
      await store.close();
    },
  });
}
