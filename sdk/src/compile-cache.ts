// Node's module compile cache for Airlock's own processes: the `airlock` CLI (and so `airlock mcp`,
// `airlock serve`, `npm start`), the sandbox workers, `airlock-plugin` and `airlock-registry`.
// Node strips the types of every file and compiles it on each start; with the cache on, it loads
// the result of the last start instead (measured: `airlock --version` 0.95 → 0.59 s, `airlock mcp`
// spawn to its first tools/list answer 835–899 → 664–666 ms, `airlock-plugin --version`
// 0.42–0.63 → 0.28–0.34 s). The cache lives in `$XDG_CACHE_HOME/airlock/node-compile-cache`
// (default `~/.cache/…`), the user's own, never a shared temp folder; `NODE_COMPILE_CACHE` set by
// the user wins, and `NODE_DISABLE_COMPILE_CACHE=1` turns it off (Node's own switches).
// Invariants: never fails a start (a cache that cannot be made is reported by Node's status and
// ignored); V8 checks every cached entry against its source, so a changed file is compiled anew.
import { constants, enableCompileCache } from "node:module";
import { homedir } from "node:os";
import { join } from "node:path";

/** Where the cache lives unless NODE_COMPILE_CACHE says otherwise. */
export function compileCacheDirectory(env: NodeJS.ProcessEnv = process.env): string {
  const base =
    env.XDG_CACHE_HOME !== undefined && env.XDG_CACHE_HOME !== ""
      ? env.XDG_CACHE_HOME
      : join(homedir(), ".cache");
  return join(base, "airlock", "node-compile-cache");
}

/** The directory to use: the user's NODE_COMPILE_CACHE, else ours; undefined when turned off. */
function directoryInUse(env: NodeJS.ProcessEnv): string | undefined {
  if (env.NODE_DISABLE_COMPILE_CACHE !== undefined) return undefined;
  const requested = env.NODE_COMPILE_CACHE;
  return requested !== undefined && requested !== "" ? requested : compileCacheDirectory(env);
}

/** Turns the cache on for this process; the directory in use, or undefined when it is off. */
export function enableAirlockCompileCache(): string | undefined {
  const directory = directoryInUse(process.env);
  if (directory === undefined) return undefined;
  const result = enableCompileCache(directory);
  const on =
    result.status === constants.compileCacheStatus.ENABLED ||
    result.status === constants.compileCacheStatus.ALREADY_ENABLED;
  return on ? result.directory : undefined;
}

/**
 * The environment entries that give a child Node process (a sandbox worker) the same cache, or
 * none when the user turned it off. A path, never a secret.
 */
export function compileCacheEnv(env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const directory = directoryInUse(env);
  return directory === undefined ? {} : { NODE_COMPILE_CACHE: directory };
}
