// SQLite: the audit journal, an append-only file per store handle in `<dataDir>/audit-journal/`
// that makes an audit entry durable before its transaction commits. `writeStamped` appends the
// entries' JSON lines with one write(2) (O_APPEND; with durability "full" followed by
// fdatasync): once it returns, the entry survives a killed process exactly as a commit with
// synchronous=NORMAL does (the page cache holds it). The host's audit writer then commits
// journaled entries in batches, each batch recording in the same transaction the highest sequence
// number it holds (`audit_journal_marks`), so a batch is in the table and marked, or neither.
// Opening the store replays the journals of handles that are gone (their process died, or they
// were never closed) past their mark, then deletes them: every journaled entry reaches the table
// once, in its journal's order.
// Invariants: sequence numbers of one journal increase by one per entry; a segment file is
// deleted only once everything in it is committed; a write that fails part-way is cut back to
// the last whole line (or the journal refuses further writes), so a torn last line (a crash
// mid-write on power loss) is the only line replay skips; a journal is replayed by one process
// (claimed by rename).
// The marks table is in the audit file beside the trail (audit-file.ts), so a batch and its mark
// commit in one transaction there; `db` below is the host's connection to that file.
import { randomBytes } from "node:crypto";
import {
  closeSync,
  fdatasyncSync,
  fsyncSync,
  ftruncateSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { join } from "node:path";
import type { DatabaseSync } from "node:sqlite";
import { auditRow, sanitizeDetails } from "../shared.ts";
import type { AuditInput, AuditJournal } from "../types.ts";

export const JOURNAL_DIR = "audit-journal";
/** A segment past this size is closed and a new one started once its entries are all written. */
const SEGMENT_BYTES = 1 << 20;
/** Journals opened by this process (never replayed by a store opened in the same process). */
const ownJournals = new Set<string>();

interface Segment {
  path: string;
  /** Highest sequence number written to this segment (0: none). */
  last: number;
}

/**
 * Opens a new journal of this store handle. `name` is `<pid>-<random>`; its segments are
 * `<name>.<n>.jsonl`.
 */
export function openAuditJournal(
  dataDir: string,
  db: DatabaseSync,
  options: { durable: "normal" | "full" },
): AuditJournal {
  const dir = join(dataDir, JOURNAL_DIR);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const name = `${process.pid}-${randomBytes(6).toString("hex")}`;
  ownJournals.add(name);
  const full = options.durable === "full";
  let seq = 0;
  let segmentNo = 0;
  let fd = -1;
  let size = 0;
  let current: Segment = { path: "", last: 0 };
  /** Older segments with entries not yet committed, oldest first. */
  const retired: Segment[] = [];
  let closed = false;
  /** Set when a failed write left a part of a line that could not be cut back: no more writes. */
  let broken: Error | null = null;

  function openSegment(): void {
    current = { path: join(dir, `${name}.${segmentNo++}.jsonl`), last: 0 };
    fd = openSync(current.path, "ax", 0o600);
    size = 0;
    if (full) syncDir(dir);
  }
  openSegment();

  function stamp(entry: AuditInput): AuditInput {
    // the time canonicalised and checked now (a bad `at` is refused here, never at commit)
    const { at } = auditRow({ ...entry, details: null });
    return { ...entry, at, details: sanitizeDetails(entry.details) };
  }

  function writeStamped(entries: readonly AuditInput[]): number {
    if (closed) throw new Error("the audit journal is closed");
    if (broken !== null) throw new Error("the audit journal cannot be written", { cause: broken });
    const first = seq + 1;
    let lines = "";
    for (let i = 0; i < entries.length; i++)
      lines += `{"s":${first + i},"e":${JSON.stringify(entries[i])}}\n`;
    const bytes = Buffer.from(lines, "utf8");
    let written = 0;
    try {
      // a write(2) may take part of the bytes (a full disk, a file-size limit): write on
      while (written < bytes.length) written += writeSync(fd, bytes, written, bytes.length - written);
      if (full) fdatasyncSync(fd);
    } catch (error) {
      // none of these entries is acknowledged: what part of them reached the file goes, so the
      // segment stays whole lines and the entries written after replay (a torn line amid others
      // would make replay refuse the segment)
      if (written > 0) cutBack(error);
      throw error;
    }
    size += written;
    seq = first + entries.length - 1;
    current.last = seq;
    return first;
  }

  /** Truncates the segment back to its last whole line; a journal that cannot is written no more. */
  function cutBack(cause: unknown): void {
    try {
      ftruncateSync(fd, size);
    } catch (error) {
      broken = new Error("a failed journal write could not be undone", { cause: error });
      process.emitWarning(`audit journal ${name}: ${String(cause)}; ${String(error)}`, "AirlockWarning");
    }
  }

  return {
    name,
    stamp,
    writeStamped,
    committed(upTo) {
      if (closed) return;
      while (retired.length > 0 && retired[0]!.last <= upTo) unlinkQuietly(retired.shift()!.path);
      if (current.last > upTo) {
        // entries written since the batch: start a fresh segment once this one is large
        if (size >= SEGMENT_BYTES) {
          closeSync(fd);
          retired.push(current);
          openSegment();
        }
        return;
      }
      // everything written is committed: empty the segment (O_APPEND writes start over at 0)
      if (size > 0) {
        ftruncateSync(fd, 0);
        size = 0;
      }
    },
    close(allCommitted) {
      if (closed) return;
      closed = true;
      closeSync(fd);
      ownJournals.delete(name);
      if (!allCommitted) return; // left for the next open to replay
      for (const s of [...retired, current]) unlinkQuietly(s.path);
      db.prepare("DELETE FROM audit_journal_marks WHERE journal = ?").run(name);
    },
  };
}

function unlinkQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
}

function syncDir(dir: string): void {
  const d = openSync(dir, "r");
  try {
    fsyncSync(d);
  } finally {
    closeSync(d);
  }
}

function alive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Replays the journals in `<dataDir>/audit-journal/` whose process is gone (or that this process
 * no longer has open): each journal's entries past its mark are inserted in one transaction, in
 * order, and the journal is deleted. Returns how many entries were inserted.
 */
export function replayAuditJournals(
  dataDir: string,
  db: DatabaseSync,
  insert: (entry: AuditInput) => void,
  transaction: (fn: () => void) => void,
): number {
  const dir = join(dataDir, JOURNAL_DIR);
  let files: string[];
  try {
    files = readdirSync(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return 0;
    throw error;
  }
  const journals = new Map<string, Array<{ no: number; file: string }>>();
  for (const file of files) {
    // `<name>.<n>.jsonl`, or `….replay-<pid>` while (or since) a process replays it
    const m = /^((\d+)-[0-9a-f]+)\.(\d+)\.jsonl(?:\.replay-(\d+))?$/.exec(file);
    if (!m) continue;
    const [, name, pid, , replayer] = m;
    if (ownJournals.has(name!)) continue;
    const owner = Number(replayer ?? pid);
    if (owner !== process.pid && alive(owner)) continue;
    const list = journals.get(name!) ?? [];
    list.push({ no: Number(m[3]), file });
    journals.set(name!, list);
  }
  let inserted = 0;
  for (const [name, segments] of journals) {
    segments.sort((a, b) => a.no - b.no);
    // claim each segment by renaming it: a process opening the store at the same time skips it
    const claimed: string[] = [];
    for (const s of segments) {
      const to = join(dir, `${s.file.replace(/\.replay-\d+$/, "")}.replay-${process.pid}`);
      try {
        renameSync(join(dir, s.file), to);
        claimed.push(to);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
      }
    }
    if (claimed.length === 0) continue;
    const row = db.prepare("SELECT seq FROM audit_journal_marks WHERE journal = ?").get(name) as
      | { seq: number }
      | undefined;
    const mark = row?.seq ?? 0;
    const entries: AuditInput[] = [];
    for (const path of claimed) {
      const lines = readFileSync(path, "utf8").split("\n");
      for (const [i, line] of lines.entries()) {
        if (line === "") continue;
        let record: { s: number; e: AuditInput };
        try {
          record = JSON.parse(line) as { s: number; e: AuditInput };
        } catch (error) {
          if (i === lines.length - 1) break; // a torn last line: never acknowledged
          throw new Error(`audit journal ${path} line ${i + 1} is corrupt`, { cause: error });
        }
        if (record.s > mark) entries.push(record.e);
      }
    }
    transaction(() => {
      for (const e of entries) insert(e);
      db.prepare("DELETE FROM audit_journal_marks WHERE journal = ?").run(name);
    });
    inserted += entries.length;
    for (const path of claimed) unlinkQuietly(path);
  }
  return inserted;
}
