// `airlock-plugin test [dir] [-- vitest args]`: runs the plugin's own tests with vitest, rooted
// at the plugin, so no repository-level config is involved. It uses the plugin's
// vitest.config.ts when it has one, else the SDK's default (test/**/*.test.ts, forked workers
// with --no-node-snapshot, which the sandbox needs). vitest is the plugin's own when installed,
// else the one beside this SDK. Exit status: vitest's (0 all passed, 1 a test failed).
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { sdkError } from "../error-codes.ts";
import { parse, pluginDirOf, reportError } from "./args.ts";
import { EXIT, type PluginCliCommand } from "./types.ts";

const DEFAULT_CONFIG = fileURLToPath(new URL("./vitest-plugin.config.ts", import.meta.url));
const CONFIGS = ["vitest.config.ts", "vitest.config.mts", "vitest.config.js", "vitest.config.mjs"];

/** vitest's CLI entry as the plugin resolves it, else as this SDK does. */
export function vitestEntry(pluginDir: string): string {
  for (const from of [join(pluginDir, "package.json"), fileURLToPath(import.meta.url)]) {
    try {
      const pkgPath = createRequire(from).resolve("vitest/package.json");
      const pkg = JSON.parse(readFileSync(pkgPath, "utf8")) as { bin?: string | Record<string, string> };
      const bin = typeof pkg.bin === "string" ? pkg.bin : pkg.bin?.vitest;
      if (bin !== undefined) return join(dirname(pkgPath), bin);
    } catch (error) {
      if ((error as { code?: string }).code !== "MODULE_NOT_FOUND") throw error;
    }
  }
  throw sdkError(
    "AIRLOCK_SDK_TEST_RUNNER_MISSING",
    "vitest is not installed in the plugin or beside the SDK: npm install -D vitest",
  );
}

export const testCommand: PluginCliCommand = {
  name: "test",
  summary: "run the plugin's tests (test/**/*.test.ts) in a real sandbox, from any folder",
  help: `Usage: airlock-plugin test [dir] [--watch] [-- <vitest options>]

Runs the plugin's tests with vitest rooted at [dir] (default: the current directory):
its vitest.config.ts when it has one, else the SDK's default (test/**/*.test.ts, forked
workers started with --no-node-snapshot for the sandbox). No repository-level config is
read. Options after -- go to vitest (e.g. -- -t "greets").

Options:
  --watch      keep running and re-run the tests on save (vitest's watch mode)
  -h, --help   show this help

Example:
  airlock-plugin test ./my-plugin
`,
  async run(args, io) {
    try {
      const split = args.indexOf("--");
      const own = split < 0 ? args : args.slice(0, split);
      const extra = split < 0 ? [] : args.slice(split + 1);
      const parsed = parse(own, { watch: { type: "boolean" } }, 1);
      if (parsed.help) {
        io.stdout(this.help);
        return EXIT.OK;
      }
      const dir = pluginDirOf(parsed, io);
      if (!existsSync(join(dir, "package.json")))
        throw sdkError("AIRLOCK_SDK_USAGE", `${dir} has no package.json: name the plugin's folder`);
      const ownConfig = CONFIGS.map((c) => join(dir, c)).find((c) => existsSync(c));
      const argv = [
        "--no-node-snapshot",
        vitestEntry(dir),
        parsed.values.watch === true ? "watch" : "run",
        "--root",
        dir,
        "--config",
        ownConfig ?? DEFAULT_CONFIG,
        ...extra,
      ];
      const child = spawn(process.execPath, argv, {
        cwd: dir,
        stdio: ["ignore", "pipe", "pipe"],
        env: io.env,
      });
      child.stdout.on("data", (c: Buffer) => io.stdout(c.toString("utf8")));
      child.stderr.on("data", (c: Buffer) => io.stderr(c.toString("utf8")));
      const code = await new Promise<number>((done, fail) => {
        child.once("error", fail);
        child.once("close", (status) => done(status ?? EXIT.FAILED));
      });
      return code === 0 ? EXIT.OK : EXIT.FAILED;
    } catch (err) {
      return reportError(err, io);
    }
  },
};
