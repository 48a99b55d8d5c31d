// Test support for the task suites (imported by tests only): the "jobs" fixture plugin. Its
// long-running tool `crunch` BUSY-WAITS (plugin code has no timers yet): `ms` of wall time in
// 20 ms slices, each slice followed by a ctx.progress call, so a cancelled or aborted call ends at
// the next slice (the bridge refuses the capability call) and the whole run stays within the
// default 2 s CPU limit for `ms` up to about 1.8 s.
import type { FixturePlugin } from "../pipeline/test-fixtures.ts";

export const JOBS: FixturePlugin = {
  namespace: "jobs",
  version: "1.0.0",
  tools: [
    {
      name: "crunch",
      description: "Works for `ms` milliseconds (busy), then answers.",
      annotations: { readOnlyHint: true },
      longRunning: true,
      inputSchema: {
        type: "object",
        properties: { ms: { type: "integer", minimum: 0, maximum: 1800 } },
        required: ["ms"],
        additionalProperties: false,
      },
      code: `async (input, ctx) => {
        const end = Date.now() + input.ms;
        let slices = 0;
        while (Date.now() < end) {
          const until = Math.min(end, Date.now() + 20);
          while (Date.now() < until) {}
          slices++;
          await ctx.progress(slices, undefined, "crunching");
        }
        return "crunched " + input.ms + " ms";
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
