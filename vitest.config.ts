// Vitest runs every suite on Node 24 in forked workers started with --no-node-snapshot,
// which isolated-vm requires on Node 20 and later.
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: [
      "sdk/**/*.test.ts",
      "host/**/*.test.ts",
      "registry/**/*.test.ts",
      "plugins/**/*.test.ts",
      "test/**/*.test.ts",
      "bench/**/*.test.ts",
    ],
    // The benchmark smoke run (bench/bench.test.ts) runs alone after the other suites, from
    // scripts/test.mjs with vitest.bench.config.ts: it loads both cores and would starve them.
    exclude: ["**/node_modules/**", "**/dist/**", "bench/**"],
    pool: "forks",
    execArgv: ["--no-node-snapshot"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    maxWorkers: 2,
    globalSetup: ["test/setup/global.ts"],
  },
});
