// Workers run under SCHED_BATCH where chrt is there to set it (Debian: util-linux, always), and
// the host never does; a worker so started serves calls like any other.
import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { batchPrefix } from "./batch-scheduling.ts";
import { makePlugin } from "./plugin-fixture.ts";
import { createWorkerSandbox, type WorkerSandbox } from "./workers.ts";

const SCHED_OTHER = 0;
const SCHED_BATCH = 3;

/** The scheduling policy of a process (/proc/<pid>/stat field 41). */
function policy(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[38]);
}

let sandbox: WorkerSandbox | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

describe.skipIf(batchPrefix().length === 0)("sandbox workers under SCHED_BATCH (needs chrt)", () => {
  it("starts every worker batch-scheduled, leaves the host as it was, and serves calls", async () => {
    sandbox = createWorkerSandbox({ workers: 2 });
    const plugin = makePlugin({
      namespace: "batched",
      code: "globalThis.__airlockPlugin = { tools: { echo: async (input) => ({ echoed: input }) } };",
      tools: ["echo"],
    });
    await sandbox.load(plugin);
    const result = await sandbox.call(
      {
        pluginKey: plugin.key,
        tool: "echo",
        input: { ok: 1 },
        token: "t",
        context: {
          instanceId: "a",
          conversationId: "c",
          toolId: "batched:echo",
          conversation: [],
          attachments: [],
          knowledgeLevel: null,
        },
        signal: new AbortController().signal,
      },
      async () => undefined,
    );
    expect(result.structuredContent).toEqual({ echoed: { ok: 1 } });
    const pids = sandbox.workerPids();
    expect(pids.length).toBeGreaterThan(0);
    for (const pid of pids) expect(policy(pid)).toBe(SCHED_BATCH);
    expect(policy(process.pid)).toBe(SCHED_OTHER);
  });
});
