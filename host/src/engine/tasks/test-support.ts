// Test support for the task suites (imported by tests only): the "jobs" fixture plugin. Its
// long-running tools `crunch` (read-only) and `stamp` (not read-only) wait `ms` of wall time in
// 20 ms timer slices, each followed by a ctx.progress call, so a cancelled or aborted call ends
// at the next slice (the bridge refuses the capability call). It sleeps rather than spins, so its length does not depend on the CPU limit or
// on how loaded the machine is.
import type { FixturePlugin } from "../pipeline/test-fixtures.ts";

export const JOBS: FixturePlugin = {
  namespace: "jobs",
  version: "1.0.0",
  tools: [
    {
      name: "crunch",
      description: "Works for `ms` milliseconds, then answers.",
      annotations: { readOnlyHint: true },
      longRunning: true,
      inputSchema: {
        type: "object",
        properties: { ms: { type: "integer", minimum: 0, maximum: 20000 } },
        required: ["ms"],
        additionalProperties: false,
      },
      code: `async (input, ctx) => {
        const end = Date.now() + input.ms;
        let slices = 0;
        while (Date.now() < end) {
          await new Promise((resolve) => setTimeout(resolve, Math.min(20, end - Date.now())));
          slices++;
          await ctx.progress(slices, undefined, "crunching");
        }
        return "crunched " + input.ms + " ms";
      }`,
    },
    {
      // The same work, not declared read-only: a task of it is never run twice (a replica that
      // dies mid-call leaves it failed with AIRLOCK_TASK_REPLICA_LOST, engine/tasks/resumable.ts).
      name: "stamp",
      description: "Works for `ms` milliseconds, then answers (not read-only: never resumed).",
      annotations: { readOnlyHint: false },
      longRunning: true,
      inputSchema: {
        type: "object",
        properties: { ms: { type: "integer", minimum: 0, maximum: 20000 } },
        required: ["ms"],
        additionalProperties: false,
      },
      code: `async (input, ctx) => {
        const end = Date.now() + input.ms;
        while (Date.now() < end) {
          await new Promise((resolve) => setTimeout(resolve, Math.min(20, end - Date.now())));
          await ctx.progress(1, undefined, "stamping");
        }
        return "stamped " + input.ms + " ms";
      }`,
    },
    {
      name: "quick",
      description: "Answers at once (not long-running).",
      annotations: { readOnlyHint: true },
      code: 'async () => "quick"',
    },
  ],
};
