// V8 code cache files for plugin bundles, keyed by the bundle's integrity and the V8 version and
// authenticated with an HMAC under a host key (V8 trusts cached data it accepts: a forged cache
// file must never be loaded).
// File format (v2): one header line `airlock-code-cache v2 <v8 version> <integrity> <mac>\n`,
// then the cached bytes; <mac> is HMAC-SHA256(key, header line up to the mac + bytes), hex.
// Contract: `readCodeCache` returns the bytes only when the header names the same integrity and
// V8 version and the MAC verifies (constant-time compare); a file that does not verify is
// reported as `rejected` (the caller discards it and warns), any other mismatch is a plain miss.
// `writeCodeCache` replaces the file atomically (a temp file, then rename). A cache is an
// optimisation: I/O failures are the caller's to report and never fail a load.
import { createHmac, timingSafeEqual } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";

const MAGIC = "airlock-code-cache v2";
const MAC_HEX = 64;

/** A host key for code cache MACs: at least 32 bytes. */
export function checkCodeCacheKey(key: Uint8Array): void {
  if (key.byteLength < 32) throw new Error("a code cache key has at least 32 bytes");
}

function prefix(integrity: string): string {
  return `${MAGIC} ${process.versions.v8} ${integrity} `;
}

function mac(key: Uint8Array, head: string, data: Uint8Array): Buffer {
  return createHmac("sha256", key).update(head, "utf8").update(data).digest();
}

export type CodeCacheRead = { bytes: Buffer } | { miss: true } | { rejected: true };

export function readCodeCache(path: string, integrity: string, key: Uint8Array): CodeCacheRead {
  let file: Buffer;
  try {
    file = readFileSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { miss: true };
    throw error;
  }
  const head = Buffer.from(prefix(integrity), "utf8");
  const headerLength = head.length + MAC_HEX + 1;
  if (file.length <= headerLength || !file.subarray(0, head.length).equals(head)) return { miss: true };
  const given = file.subarray(head.length, head.length + MAC_HEX).toString("latin1");
  const bytes = file.subarray(headerLength);
  const expected = mac(key, prefix(integrity), bytes);
  const ok =
    file[headerLength - 1] === 0x0a &&
    /^[0-9a-f]{64}$/.test(given) &&
    timingSafeEqual(Buffer.from(given, "hex"), expected);
  return ok ? { bytes } : { rejected: true };
}

export function writeCodeCache(path: string, integrity: string, data: Uint8Array, key: Uint8Array): void {
  mkdirSync(dirname(path), { recursive: true });
  const head = prefix(integrity);
  const line = `${head}${mac(key, head, data).toString("hex")}\n`;
  const temp = `${path}.${process.pid}.tmp`;
  writeFileSync(temp, Buffer.concat([Buffer.from(line, "utf8"), data]));
  renameSync(temp, path);
}

/** Removes a cache file that failed authentication (it is never loaded). */
export function discardCodeCache(path: string): void {
  rmSync(path, { force: true });
}
