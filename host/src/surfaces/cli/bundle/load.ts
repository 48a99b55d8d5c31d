// What the `airlock` executable (host/bin/airlock.ts) runs: the CLI's `main` from the host bundle
// (build.ts) when the bundle is fresh (manifest.ts: every input as it was built from), after
// rebuilding it when it is not, and from the sources when it cannot be built or loaded (said on
// stderr) or AIRLOCK_FROM_SOURCE=1 asks for that (a debugger, a stack trace into the real files).
// One process builds at a time per cache directory (a lock file); the others wait for its
// manifest, and build themselves only when the lock is older than LOCK_STALE_MS.
// Invariants: a stale bundle is never run; this file and manifest.ts import node built-ins only
// (esbuild and the builder load only when a build is needed).
import { closeSync, existsSync, mkdirSync, openSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { checkFreshness, DEFAULT_CACHE_DIR, ENTRY_FILE, type Freshness, writeManifest } from "./manifest.ts";

const LOCK_STALE_MS = 120_000;
const WAIT_STEP_MS = 50;

/** The CLI's entry point (main.ts `main`): runs the command in argv and exits. */
export type CliMain = (argv?: readonly string[]) => Promise<never>;

export interface LoadedCli {
  main: CliMain;
  /** Where `main` came from: the bundle as found, one built now, or the sources. */
  from: "bundle" | "rebuilt" | "source";
  /** The bundle's entry file (absent when run from the sources). */
  entry?: string;
}

function sleep(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** The bundle's entry when the recorded bundle is fresh and its files are there. */
function freshEntry(cacheDir: string): string | null {
  const state: Freshness = checkFreshness(cacheDir);
  if (!state.fresh) return null;
  const entry = join(cacheDir, state.manifest.dir, ENTRY_FILE);
  if (!existsSync(entry)) return null;
  if (state.touched > 0) {
    try {
      writeManifest(cacheDir, state.manifest); // so the next start takes the stat shortcut again
    } catch {
      // a read-only cache still runs; the next start hashes those files again
    }
  }
  return entry;
}

/** Builds under the build lock, or waits for the process holding it; the fresh bundle's entry. */
async function buildUnderLock(cacheDir: string): Promise<string> {
  mkdirSync(cacheDir, { recursive: true });
  const lock = join(cacheDir, "build.lock");
  for (;;) {
    try {
      closeSync(openSync(lock, "wx"));
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
    const age = (() => {
      try {
        return Date.now() - statSync(lock).mtimeMs;
      } catch {
        return 0; // released meanwhile: try again
      }
    })();
    if (age > LOCK_STALE_MS) rmSync(lock, { force: true });
    else sleep(WAIT_STEP_MS);
    const built = freshEntry(cacheDir);
    if (built !== null) return built;
  }
  try {
    const again = freshEntry(cacheDir); // built by the holder before us
    if (again !== null) return again;
    const { buildHostBundle } = await import("./build.ts");
    const manifest = await buildHostBundle(cacheDir);
    return join(cacheDir, manifest.dir, ENTRY_FILE);
  } finally {
    rmSync(lock, { force: true });
  }
}

/**
 * The entry of a fresh bundle in `cacheDir`, built first when there is none or it is stale;
 * `rebuilt` says which. Throws when a build fails.
 */
export async function ensureHostBundle(
  cacheDir: string = DEFAULT_CACHE_DIR,
): Promise<{ entry: string; rebuilt: boolean }> {
  const entry = freshEntry(cacheDir);
  if (entry !== null) return { entry, rebuilt: false };
  return { entry: await buildUnderLock(cacheDir), rebuilt: true };
}

/** The CLI's main, from a fresh bundle when there can be one (see the header). */
export async function loadCli(
  env: NodeJS.ProcessEnv = process.env,
  cacheDir: string = DEFAULT_CACHE_DIR,
): Promise<LoadedCli> {
  const fromSource = async (): Promise<LoadedCli> => ({
    main: (await import("../main.ts")).main,
    from: "source",
  });
  if (env.AIRLOCK_FROM_SOURCE === "1") return fromSource();
  try {
    const bundle = await ensureHostBundle(cacheDir);
    const module = (await import(pathToFileURL(bundle.entry).href)) as { main: CliMain };
    return { main: module.main, from: bundle.rebuilt ? "rebuilt" : "bundle", entry: bundle.entry };
  } catch (error) {
    // a build that failed, or a bundle that does not load: the sources still run
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`airlock: cannot run the host bundle (${message}); running from source\n`);
    return fromSource();
  }
}
