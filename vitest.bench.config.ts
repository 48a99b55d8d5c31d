// The benchmark smoke run alone (tiny iteration counts, no timing assertions): see bench/bench.test.ts.
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["bench/**/*.test.ts"],
    pool: "forks",
    execArgv: ["--no-node-snapshot"],
    testTimeout: 600_000,
    maxWorkers: 1,
  },
});
