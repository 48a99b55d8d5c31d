// The audit writer's journal mode, the append side: an appended entry is stamped, then written
// to the journal (SQLite: store/sqlite/audit-journal.ts) together with every entry appended in
// the same run of microtasks (a worker's frame of results settles many calls at once) — one
// write(2) on this thread for the group — and its append() resolves once that write is done:
// the entry is then as durable as a commit (a killed process loses nothing; the next open
// replays it). The journaled entries join the buffer with their sequence numbers and commit
// within laterMs (audit-writer-commit.ts).
// Invariants: entries are journaled and buffered in append order; a malformed entry is refused
// alone, at stamp time; a failed journal write rejects exactly the appends of its group and
// buffers none of them; a full buffer makes append() wait for a drain, or refuses the entry when
// the last commit failed (the backlog cannot shrink until the store recovers).
import type { AuditInput, AuditJournal } from "../../state/store/types.ts";
import { drain, scheduleLater, type WriterState } from "./audit-writer-commit.ts";

/** A journaled entry's append() resolved when it was journaled. */
const settled = (): void => undefined;

/**
 * Journal mode: durable once written; committed within laterMs (or retried). The entries
 * appended in one run of microtasks (the continuations of calls a worker answered together)
 * share one write, made once that run is over (writeGroup); each append resolves after it.
 */
export async function appendJournaled(
  state: WriterState,
  journal: AuditJournal,
  entry: AuditInput,
): Promise<void> {
  while (state.buffer.length + state.group.length >= state.maxBuffered) {
    if (state.failed) throw new Error("the audit trail cannot be committed (its backlog is full)");
    writeGroup(state);
    await drain(state);
  }
  const stamped = journal.stamp(entry); // a malformed entry is refused alone, here
  return new Promise<void>((resolve, reject) => {
    if (state.group.push({ entry: stamped, seq: 0, resolve, reject }) === 1)
      queueMicrotask(state.writeGroupTask);
  });
}

/** Journal mode: writes the entries appended since the last group, in order, with one write. */
export function writeGroup(state: WriterState): void {
  const { journal } = state;
  if (state.group.length === 0 || journal === undefined) return;
  const written = state.group;
  state.group = [];
  let first: number;
  try {
    first = journal.writeStamped(written.map((p) => p.entry));
  } catch (error) {
    for (const p of written) p.reject(error);
    return;
  }
  const { buffer } = state;
  for (let i = 0; i < written.length; i++) {
    const p = written[i]!;
    buffer.push({ entry: p.entry, seq: first + i, resolve: settled, reject: settled });
    p.resolve();
  }
  if (!state.failed) scheduleLater(state);
}
