// Child process of the audit journal durability test: opens the SQLite store in argv[2] with the
// host's audit writer and its journal, appends capability-style entries numbered from 0 as fast
// as it can, and prints `A <i>` once append() of entry i resolved (stdout to a pipe is
// synchronous on Linux: a printed line means the acknowledgement left the process). It runs
// until it is killed; batches commit meanwhile, so the kill lands between commits.
import { createAuditWriter } from "../../host/src/pipeline/audit-writer.ts";
import { openStore } from "../../host/src/store/index.ts";

const dataDir = process.argv[2];
if (dataDir === undefined) throw new Error("usage: audit-child.ts <dataDir>");
const store = await openStore({ kind: "sqlite", dataDir });
const journal = store.openAuditJournal?.();
if (journal === undefined) throw new Error("the SQLite store has no audit journal");
// batches every 20 ms: at any moment some acknowledged entries are journaled, not committed
const writer = createAuditWriter(store, { journal, laterMs: 20 });
process.stdout.write("READY\n");
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
  process.stdout.write(`A ${i}\n`);
  // let batches commit now and then, so the journal holds both committed and pending entries
  if (i % 64 === 0) await new Promise((resolve) => setTimeout(resolve, 1));
}
