// The default vitest config of `airlock-plugin test` for a plugin without its own: the plugin's
// test/**/*.test.ts, in forked workers started with --no-node-snapshot (isolated-vm needs it).
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    pool: "forks",
    execArgv: ["--no-node-snapshot"],
    testTimeout: 30_000,
  },
});
