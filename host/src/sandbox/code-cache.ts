// V8 code cache files for plugin bundles, keyed by the bundle's integrity and the V8 version.
// Contract: `readCodeCache` returns the cached bytes only when the file's header names the same
// integrity and V8 version (anything else reads as a miss); `writeCodeCache` replaces the file
// atomically (write to a temp file, then rename). A cache is an optimisation: I/O failures are
// reported to the caller's `onError` and never fail a load.
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";

const MAGIC = "airlock-code-cache v1";

function header(integrity: string): string {
  return `${MAGIC} ${process.versions.v8} ${integrity}\n`;
}

export function readCodeCache(path: string, integrity: string): Buffer | undefined {
  let file: Buffer;
  try {
    file = readFileSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
  const expected = Buffer.from(header(integrity), "utf8");
  if (file.length <= expected.length || !file.subarray(0, expected.length).equals(expected)) return undefined;
  return file.subarray(expected.length);
}

export function writeCodeCache(path: string, integrity: string, data: Uint8Array): void {
  mkdirSync(dirname(path), { recursive: true });
  const temp = `${path}.${process.pid}.tmp`;
  writeFileSync(temp, Buffer.concat([Buffer.from(header(integrity), "utf8"), data]));
  renameSync(temp, path);
}
