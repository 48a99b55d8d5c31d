// Child process of the PostgreSQL multi-process take test: opens the store at argv[2] on the
// schema in argv[3], says READY, reads one line of JSON handles from stdin, tries to take every one of
// them, and prints `TOOK <handle> <sha256>` for each it got, then DONE.
import { createInterface } from "node:readline";
import { openStore } from "../../host/src/state/store/index.ts";
import { sha256 } from "./burst-fixtures.ts";

const [url, schema] = process.argv.slice(2);
if (url === undefined || schema === undefined) throw new Error("usage: pg-taker-child.ts <url> <schema>");
const store = await openStore({ kind: "postgres", url, schema, maxConnections: 4 });
process.stdout.write("READY\n");
const lines = createInterface({ input: process.stdin });
for await (const line of lines) {
  const handles = JSON.parse(line) as string[];
  const got = await Promise.all(handles.map((h) => store.takeArtifact(h, "a", "c", Date.now())));
  for (const g of got) if (g !== null) process.stdout.write(`TOOK ${g.handle} ${sha256(g.bytes)}\n`);
  process.stdout.write("DONE\n");
  break;
}
lines.close();
await store.close();
