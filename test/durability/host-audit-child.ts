// Child process of the host-level audit durability test: a real host on SQLite (test-host.ts:
// in-process sandbox) calls a tool that makes two capability calls, argv[2] times, printing
// `A <i>` with a write(2) of its own once call i returned. After the last it stops yielding to
// its timers (a busy loop until it is killed), so no audit batch commits after it: the entries
// of the calls since the last commit, tool calls' own entries among them, are in the journal only.
import { writeSync } from "node:fs";
import { openTestHost } from "../../host/src/engine/pipeline/test-host.ts";

const CALLS = Number(process.argv[2]);
if (!Number.isInteger(CALLS) || CALLS < 1) throw new Error("usage: host-audit-child.ts <calls>");

const t = await openTestHost([
  {
    namespace: "journal",
    tools: [
      {
        name: "touch",
        code: "async (input, ctx) => { await ctx.state.set('k', 1); return String(await ctx.state.get('k')); }",
        annotations: { readOnlyHint: true },
      },
    ],
  },
]);
await t.host.createAgent("ada");
await t.host.setToolsEnabled("ada", { "journal:touch": true });
writeSync(1, `DIR ${t.dir}\n`);
for (let i = 0; i < CALLS; i++) {
  const outcome = await t.host.callTool("ada", "journal:touch", {});
  if (outcome.result.isError === true) throw new Error(`call ${i} failed: ${JSON.stringify(outcome.result)}`);
  writeSync(1, `A ${i}\n`);
}
for (;;) {
  // holds the event loop: no timer (no batch commit) runs before the kill
}
