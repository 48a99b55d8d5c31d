// Child process of the task replica suite: a host replica on the PostgreSQL store at argv[2]
// (schema argv[3], data dir argv[4], master key argv[5]) that only works the task queue, as
// replica "child". Prints READY, then runs until it is killed.
import { createHost } from "../../host/src/host.ts";

const [url, schema, dataDir, masterKey] = process.argv.slice(2);
if (url === undefined || schema === undefined || dataDir === undefined || masterKey === undefined) {
  throw new Error("usage: task-worker-child.ts <url> <schema> <dataDir> <masterKey>");
}
await createHost({
  dataDir,
  store: { kind: "postgres", url, schema },
  sandbox: { mode: "in-process" },
  masterKey,
  replica: { id: "child", heartbeatMs: 300 },
  tasks: { concurrency: 2, pollIntervalMs: 100 },
  onInternalError: (what, error) => process.stderr.write(`${what}: ${String(error)}\n`),
});
process.stdout.write("READY\n");
setInterval(() => undefined, 60_000);
