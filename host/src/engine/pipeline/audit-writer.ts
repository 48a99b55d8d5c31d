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
// This file is the writer's API and the store wrapper; its pieces share one WriterState:
// audit-writer-commit.ts (buffer, batches, the drain and its timers) and audit-writer-journal.ts
// (journal mode's append side: one journal write per run of microtasks).
import type { AuditInput, AuditJournal, AuditQuery, AuditRecord, Store } from "../../state/store/types.ts";
import { type AuditSink, drain, schedule, type WriterState } from "./audit-writer-commit.ts";
import { appendJournaled, writeGroup } from "./audit-writer-journal.ts";

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

export function createAuditWriter(sink: AuditSink, options: AuditWriterOptions = {}): AuditWriter {
  const maxBatch = Math.max(1, options.maxBatch ?? 512);
  const state: WriterState = {
    sink,
    journal: options.journal,
    maxBatch,
    maxBuffered: Math.max(maxBatch, options.maxBuffered ?? 8192),
    laterMs: options.laterMs ?? 20,
    onCommitError: options.onCommitError ?? (() => undefined),
    writeGroupTask: () => writeGroup(state),
    buffer: [],
    group: [],
    writing: null,
    inFlight: 0,
    scheduled: false,
    timer: null,
    failed: false,
  };
  const { journal } = state;
  return {
    async append(entry) {
      if (journal !== undefined) return appendJournaled(state, journal, entry);
      while (state.buffer.length >= state.maxBuffered) await drain(state);
      const done = new Promise<void>((resolve, reject) =>
        state.buffer.push({ entry, seq: 0, resolve, reject }),
      );
      schedule(state);
      return done;
    },
    async flush() {
      writeGroup(state);
      if (state.timer !== null && state.failed) {
        // a commit failed: try once more now; what still fails stays journaled
        clearTimeout(state.timer);
        state.timer = null;
      }
      while (state.buffer.length > 0 || state.writing !== null) {
        await drain(state);
        if (state.failed) return;
      }
    },
    close() {
      writeGroup(state);
      journal?.close(state.buffer.length === 0 && state.writing === null);
    },
    get pending() {
      return state.group.length + state.buffer.length + state.inFlight;
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
