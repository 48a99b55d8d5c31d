// Where a running host is, so that `airlock` commands run from any folder act on it.
// A host started by `airlock start`/`serve` writes a HostLocation (data dir, admin URL, local
// registry URL, pid, version) to two places: `<data-dir>/host.json`, which says whether a data
// dir is being served right now, and the per-user `host.json` in the state directory
// (`$XDG_STATE_HOME/airlock/`, else `~/.local/state/airlock/`), which names the host this user
// started last. Both are mode 0600 and written atomically; shutdown removes them (only those
// that still name this process). A location whose pid is gone is stale and reads as null.
import { existsSync, readFileSync } from "node:fs";
import { chmod, mkdir, rename, rm, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import { join } from "node:path";
import type { CliIO } from "./types.ts";

export interface HostLocation {
  dataDir: string;
  /** The admin API's base URL (no `/api`), e.g. http://127.0.0.1:4480. */
  adminUrl: string;
  /** The local registry `airlock start` runs, when it runs one. */
  registryUrl: string | null;
  pid: number;
  version: string;
  startedAt: string;
}

export const LOCATION_FILE = "host.json";

/**
 * The per-user state directory: $XDG_STATE_HOME/airlock, else $HOME/.local/state/airlock, read
 * from the CLI's env (the process's env when that names neither, as an embedding's may not).
 */
export function userStateDir(env: CliIO["env"]): string {
  const source = env.XDG_STATE_HOME !== undefined || env.HOME !== undefined ? env : process.env;
  const xdg = source.XDG_STATE_HOME;
  if (xdg?.startsWith("/")) return join(xdg, "airlock");
  return join(source.HOME ?? homedir(), ".local", "state", "airlock");
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as { code?: string }).code === "EPERM";
  }
}

function readLocationFile(path: string): HostLocation | null {
  if (!existsSync(path)) return null;
  let parsed: Partial<HostLocation>;
  try {
    parsed = JSON.parse(readFileSync(path, "utf8")) as Partial<HostLocation>;
  } catch (error) {
    // A torn or hand-edited file names no host; the next start rewrites it.
    if (error instanceof SyntaxError) return null;
    throw error;
  }
  if (typeof parsed.dataDir !== "string" || typeof parsed.adminUrl !== "string") return null;
  if (typeof parsed.pid !== "number" || !alive(parsed.pid)) return null;
  return {
    dataDir: parsed.dataDir,
    adminUrl: parsed.adminUrl,
    registryUrl: typeof parsed.registryUrl === "string" ? parsed.registryUrl : null,
    pid: parsed.pid,
    version: String(parsed.version ?? ""),
    startedAt: String(parsed.startedAt ?? ""),
  };
}

/** The live host serving `dataDir`, or null. */
export function runningHostOf(dataDir: string): HostLocation | null {
  const location = readLocationFile(join(dataDir, LOCATION_FILE));
  return location !== null && location.dataDir === dataDir ? location : null;
}

/** The live host this user started last, or null. */
export function userHost(env: CliIO["env"]): HostLocation | null {
  const location = readLocationFile(join(userStateDir(env), LOCATION_FILE));
  // The data dir's own file must agree (a host on another data dir may have overwritten it since).
  return location !== null && runningHostOf(location.dataDir)?.pid === location.pid ? location : null;
}

async function writeAtomic(path: string, location: HostLocation): Promise<void> {
  const temp = `${path}.${process.pid}.tmp`;
  await writeFile(temp, `${JSON.stringify(location, null, 2)}\n`, { mode: 0o600 });
  await chmod(temp, 0o600);
  await rename(temp, path);
}

/** Records `location` in the data dir and the user's state dir; returns the cleanup for shutdown. */
export async function publishLocation(
  env: CliIO["env"],
  location: HostLocation,
): Promise<() => Promise<void>> {
  const stateDir = userStateDir(env);
  await mkdir(stateDir, { recursive: true, mode: 0o700 });
  // A host on a shared PostgreSQL store may not have needed its data dir yet.
  await mkdir(location.dataDir, { recursive: true, mode: 0o700 });
  const paths = [join(location.dataDir, LOCATION_FILE), join(stateDir, LOCATION_FILE)];
  for (const path of paths) await writeAtomic(path, location);
  return async () => {
    for (const path of paths) {
      let current: { pid?: unknown } | null = null;
      try {
        current = JSON.parse(readFileSync(path, "utf8")) as { pid?: unknown };
      } catch (error) {
        // Already gone or replaced by something unreadable: not ours to remove.
        if (!(error instanceof SyntaxError) && (error as { code?: string }).code !== "ENOENT") throw error;
      }
      if (current?.pid === location.pid) await rm(path, { force: true });
    }
  };
}
