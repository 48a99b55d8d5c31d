// Child process of the audit journal durability test: opens the SQLite store in argv[2] with the
// host's audit writer and its journal, appends capability-style entries numbered from 0 as fast
// as it can, and prints `A <i>` once append() of entry i resolved, with a write(2) of its own
// (retried while the pipe is full), so a printed line has left the process. It runs
// until it is killed; batches commit meanwhile. From entry argv[3] on (the one the test kills at)
// it stops yielding to its timers, so no batch commits after it: whenever the kill lands, the
// entries acknowledged since the last commit are in the journal only.
import { writeSync } from "node:fs";
import { createAuditWriter } from "../../host/src/engine/pipeline/audit-writer.ts";
import { openStore } from "../../host/src/state/store/index.ts";

const dataDir = process.argv[2];
const lastYield = Number(process.argv[3]);
if (dataDir === undefined || !Number.isInteger(lastYield))
  throw new Error("usage: audit-child.ts <dataDir> <killAfter>");
const store = await openStore({ kind: "sqlite", dataDir });
const journal = store.openAuditJournal?.();
if (journal === undefined) throw new Error("the SQLite store has no audit journal");
// batches every 20 ms: at any moment some acknowledged entries are journaled, not committed
const writer = createAuditWriter(store, { journal, laterMs: 20 });
/** Writes `line` to stdout before returning (never left queued in this process). */
function print(line: string): void {
  const bytes = Buffer.from(line);
  for (let at = 0; at < bytes.length; ) {
    try {
      at += writeSync(1, bytes, at);
    } catch (error) {
      if ((error as { code?: string }).code !== "EAGAIN") throw error; // the pipe is full: again
    }
  }
}

print("READY\n");
for (let i = 0; ; i++) {
  await writer.append({
    agent: "ada",
    plugin: "p",
    tool: "t",
    conversationId: "c",
    kind: "capability",
    action: `state.get-${i}`,
    allowed: true,
    success: true,
    error: null,
    durationMs: 0,
    details: { i },
  });
  print(`A ${i}\n`);
  // let batches commit now and then, so the journal holds both committed and pending entries
  if (i % 64 === 0 && i < lastYield) await new Promise((resolve) => setTimeout(resolve, 1));
}
