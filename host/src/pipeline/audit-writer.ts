// Group commit for the audit trail: entries appended while the event loop is busy (the same
// tick, or while a previous batch is being written) are written together in one transaction
// (SQLite) or one multi-row INSERT (PostgreSQL) through the store's optional appendAuditBatch.
// Two ways in: append() resolves once the entry is committed (rejects when it could not be, so
// a caller that refuses on audit failure still can); appendLater() resolves once the entry is
// buffered and commits it within `laterMs` (a failure goes to `onLaterError`), so a batch can
// gather several calls' entries and the commit runs while the next call is in flight.
// Invariants: nothing is dropped; entries are written in append order, one batch at a time; a
// full buffer makes both ways wait (back-pressure) instead of growing without bound; flush()
// resolves once everything appended before it is committed, and the wrapped store's
// queryAudit() and close() flush first.
import type { AuditInput, AuditQuery, AuditRecord, Store } from "../store/types.ts";

export interface AuditWriterOptions {
  /** Entries written per batch; default 512. */
  maxBatch?: number;
  /** Entries buffered before append() waits for a batch to commit; default 8192. */
  maxBuffered?: number;
  /** How long an appendLater() entry may wait for its batch; default 2 ms. */
  laterMs?: number;
  /** Where a failed appendLater() commit is reported. */
  onLaterError?: (error: unknown) => void;
}

export interface AuditWriter {
  append(entry: AuditInput): Promise<void>;
  /** Resolves once buffered (at once unless the buffer is full); committed within laterMs. */
  appendLater(entry: AuditInput): Promise<void>;
  /** Resolves once every entry appended before this call is committed (or has failed). */
  flush(): Promise<void>;
  /** Entries buffered or being written right now. */
  readonly pending: number;
}

/** Store.appendAuditBatch (optional): writes all entries in one transaction, or none. */
type AuditSink = Pick<Store, "appendAudit"> & {
  appendAuditBatch?: (entries: readonly AuditInput[]) => Promise<void>;
};

interface Pending {
  entry: AuditInput;
  resolve(): void;
  reject(error: unknown): void;
}

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
        await writeBatch(batch);
        inFlight = 0;
      }
    })().finally(() => {
      writing = null;
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

  function enqueue(entry: AuditInput): Promise<void> {
    return new Promise<void>((resolve, reject) => buffer.push({ entry, resolve, reject }));
  }

  return {
    async append(entry) {
      while (buffer.length >= maxBuffered) await drain();
      const done = enqueue(entry);
      urgent = true;
      schedule();
      return done;
    },
    async appendLater(entry) {
      while (buffer.length >= maxBuffered) await drain();
      enqueue(entry).catch(onLaterError);
      scheduleLater();
    },
    async flush() {
      while (buffer.length > 0 || writing !== null) await drain();
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
      await store.close();
    },
  });
}
