// Group commit for the audit trail: entries appended while the event loop is busy (the same
// tick, or while a previous batch is being written) are written together in one transaction
// (SQLite) or one prepared INSERT (PostgreSQL) through the store's optional appendAuditBatch.
// Without a journal, append() resolves once the entry is committed (rejects when it could not
// be, so a caller that refuses on audit failure still can).
// With a journal (SQLite: store.openAuditJournal, store/sqlite/audit-journal.ts) append() writes
// the entry to the journal first, one write(2) on this thread for all the entries appended in the
// same run of microtasks (a worker's frame of results settles many calls at once), and resolves
// then: the entry is as durable as a commit already (a killed process loses nothing; the next
// open replays it), so the caller answers without waiting for SQLite. It commits within
// `laterMs` (20 ms) in a batch that records the journal's mark: the window only bounds how late
// the table shows an entry to a reader that does not flush (queryAudit does), so it is long
// enough for a batch to gather the entries of many calls (a commit costs the writer thread
// ≈ 0.4 ms however few rows it holds).
// A batch that fails is retried whole (after RETRY_MS), never split or skipped, so the table
// receives every journaled entry once and in order.
// Invariants: nothing is dropped; entries are written in append order, one batch at a time; a
// full buffer makes append() wait (back-pressure) instead of growing without bound (with a
// journal, a full buffer whose last commit failed refuses the entry instead); flush()
// resolves once everything appended before it is committed (with a journal: or has failed once;
// it stays in the journal), and the wrapped store's queryAudit() and close() flush first.
import type { AuditInput, AuditJournal, AuditQuery, AuditRecord, Store } from "../../state/store/types.ts";

export interface AuditWriterOptions {
  /** Entries written per batch; default 512. */
  maxBatch?: number;
  /** Entries buffered before append() waits for a batch to commit; default 8192. */
  maxBuffered?: number;
  /** With a journal: how long a journaled entry may wait for its batch; default 20 ms. */
  laterMs?: number;
  /** With a journal: where every failed commit is reported (its entries stay journaled). */
  onCommitError?: (error: unknown) => void;
  /** Makes entries durable before they commit (see the header); the writer closes it on close. */
  journal?: AuditJournal;
}

/** How long a failed journaled batch waits before it is tried again. */
const RETRY_MS = 100;

export interface AuditWriter {
  /** Resolves once the entry is committed, or (with a journal) once it is journaled. */
  append(entry: AuditInput): Promise<void>;
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
  /** Without a journal: the append() awaiting the commit. */
  resolve(): void;
  reject(error: unknown): void;
}

/** A journaled entry's append() resolved when it was journaled. */
const settled = (): void => undefined;

export function createAuditWriter(sink: AuditSink, options: AuditWriterOptions = {}): AuditWriter {
  const maxBatch = Math.max(1, options.maxBatch ?? 512);
  const maxBuffered = Math.max(maxBatch, options.maxBuffered ?? 8192);
  let buffer: Pending[] = [];
  /** Journal mode: entries appended but not yet journaled (writeGroup), in append order. */
  let group: Pending[] = [];
  let writing: Promise<void> | null = null;
  let inFlight = 0;
  let scheduled = false;
  let timer: NodeJS.Timeout | null = null;
  const laterMs = options.laterMs ?? 20;
  const onCommitError = options.onCommitError ?? (() => undefined);
  const journal = options.journal;
  /** With a journal: the last batch failed (it is back in the buffer, retried after RETRY_MS). */
  let failed = false;

  /** Journal mode: the batch and its mark in one transaction, or back to the buffer's head. */
  async function writeJournaled(batch: Pending[], journal: AuditJournal): Promise<void> {
    // entries are journaled in append order: the batch's last is its highest
    const seq = batch[batch.length - 1]!.seq;
    try {
      if (sink.appendAuditBatch === undefined) throw new Error("the store cannot commit a journal mark");
      await sink.appendAuditBatch(
        batch.map((p) => p.entry),
        { journal: journal.name, seq },
      );
    } catch (error) {
      failed = true;
      buffer = batch.concat(buffer);
      onCommitError(error);
      return;
    }
    failed = false;
    journal.committed(seq);
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
        if (journal === undefined) schedule();
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

  /**
   * Journal mode: durable once written; committed within laterMs (or retried). The entries
   * appended in one run of microtasks (the continuations of calls a worker answered together)
   * share one write, made once that run is over (writeGroup); each append resolves after it.
   */
  async function journaled(journal: AuditJournal, entry: AuditInput): Promise<void> {
    while (buffer.length + group.length >= maxBuffered) {
      if (failed) throw new Error("the audit trail cannot be committed (its backlog is full)");
      writeGroup();
      await drain();
    }
    const stamped = journal.stamp(entry); // a malformed entry is refused alone, here
    return new Promise<void>((resolve, reject) => {
      if (group.push({ entry: stamped, seq: 0, resolve, reject }) === 1) queueMicrotask(writeGroup);
    });
  }

  /** Journal mode: writes the entries appended since the last group, in order, with one write. */
  function writeGroup(): void {
    if (group.length === 0 || journal === undefined) return;
    const written = group;
    group = [];
    let first: number;
    try {
      first = journal.writeStamped(written.map((p) => p.entry));
    } catch (error) {
      for (const p of written) p.reject(error);
      return;
    }
    for (let i = 0; i < written.length; i++) {
      const p = written[i]!;
      buffer.push({ entry: p.entry, seq: first + i, resolve: settled, reject: settled });
      p.resolve();
    }
    if (!failed) scheduleLater();
  }

  return {
    async append(entry) {
      if (journal !== undefined) return journaled(journal, entry);
      while (buffer.length >= maxBuffered) await drain();
      const done = new Promise<void>((resolve, reject) => buffer.push({ entry, seq: 0, resolve, reject }));
      schedule();
      return done;
    },
    async flush() {
      writeGroup();
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
      writeGroup();
      journal?.close(buffer.length === 0 && writing === null);
    },
    get pending() {
      return group.length + buffer.length + inFlight;
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
