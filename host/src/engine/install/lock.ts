// One lifecycle operation per namespace at a time, within a process and across processes
// sharing a data directory. Contract: `withNamespaceLock(dataDir, ns, fn)` runs fn while holding
// an in-process mutex AND `<dataDir>/plugins/.locks/<ns>.lock` (created O_EXCL, holding the
// pid). A lock file whose pid is dead is stale (its holder was killed) and is taken over.
// Waiting for a live holder gives up after `timeoutMs` with AIRLOCK_INSTALL_LOCKED.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { installError } from "./errors.ts";

const chains = new Map<string, Promise<unknown>>();

export function lockDir(dataDir: string): string {
  return join(dataDir, "plugins", ".locks");
}

export function pidAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as { code?: string }).code === "EPERM";
  }
}

function tryAcquire(file: string): boolean {
  try {
    writeFileSync(file, String(process.pid), { flag: "wx", mode: 0o644 });
    return true;
  } catch (err) {
    if ((err as { code?: string }).code !== "EEXIST") throw err;
  }
  let holder = Number.NaN;
  try {
    holder = Number(readFileSync(file, "utf8"));
  } catch (err) {
    if ((err as { code?: string }).code !== "ENOENT") throw err;
    return false; // released between our attempt and the read: retry
  }
  if (holder !== process.pid && !pidAlive(holder)) {
    rmSync(file, { force: true });
  }
  return false;
}

async function acquireFile(dataDir: string, namespace: string, timeoutMs: number): Promise<string> {
  mkdirSync(lockDir(dataDir), { recursive: true });
  const file = join(lockDir(dataDir), `${namespace}.lock`);
  const deadline = Date.now() + timeoutMs;
  let wait = 10;
  while (!tryAcquire(file)) {
    if (Date.now() > deadline) {
      throw installError("AIRLOCK_INSTALL_LOCKED", `another process is changing plugin "${namespace}"`, {
        namespace,
      });
    }
    await delay(wait);
    wait = Math.min(wait * 2, 250);
  }
  return file;
}

export async function withNamespaceLock<T>(
  dataDir: string,
  namespace: string,
  fn: () => Promise<T>,
  timeoutMs = 60_000,
): Promise<T> {
  const key = `${dataDir}\0${namespace}`;
  // Every entry in `chains` is a promise that never rejects, so the next run always starts.
  const before = chains.get(key) ?? Promise.resolve();
  const run = before.then(async () => {
    const file = await acquireFile(dataDir, namespace, timeoutMs);
    try {
      return await fn();
    } finally {
      rmSync(file, { force: true });
    }
  });
  const settled = run.then(
    () => undefined,
    () => undefined,
  );
  chains.set(key, settled);
  try {
    return await run;
  } finally {
    if (chains.get(key) === settled) chains.delete(key);
  }
}
