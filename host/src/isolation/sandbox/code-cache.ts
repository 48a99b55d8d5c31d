// V8 code cache files for plugin bundles, keyed by the bundle's integrity and the V8 version and
// authenticated with a MAC under a host key (V8 trusts cached data it accepts: a forged cache
// file must never be loaded).
// File format (v3): one header line `airlock-code-cache v3 <v8 version> <integrity> <nonce><tag>\n`,
// then the cached bytes; <tag> is GMAC (AES-256-GCM with no plaintext) over the header line up
// to the nonce + the bytes, under a key derived from the host key (HKDF-SHA256) and a random
// 96-bit <nonce> drawn for each write; both hex. GMAC, not HMAC-SHA256: a 482 KB cache verifies
// in 0.04 ms against 0.29 (AES-NI and carry-less multiply), and it is read on every cold load.
// Random nonces keep GMAC sound for far more writes than a host makes (2^32 per key); only the
// host writes, so an attacker never chooses a nonce that is tagged.
// Contract: `readCodeCache` returns the bytes only when the header names the same integrity and
// V8 version and the tag verifies (constant-time compare), in a buffer that owns its whole
// ArrayBuffer (the caller may move it, not copy it); a file that does not verify is reported as
// `rejected` (the caller discards it and warns), any other mismatch (an older format's file among
// them) is a plain miss.
// `writeCodeCache` replaces the file atomically (a temp file, then rename). A cache is an
// optimisation: I/O failures are the caller's to report and never fail a load.
import { createCipheriv, hkdfSync, randomBytes, timingSafeEqual } from "node:crypto";
import {
  closeSync,
  fstatSync,
  mkdirSync,
  openSync,
  readSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { dirname } from "node:path";

const MAGIC = "airlock-code-cache v3";
const NONCE_BYTES = 12;
const TAG_BYTES = 16;
const MAC_HEX = (NONCE_BYTES + TAG_BYTES) * 2;

/** A host key for code cache MACs: at least 32 bytes. */
export function checkCodeCacheKey(key: Uint8Array): void {
  if (key.byteLength < 32) throw new Error("a code cache key has at least 32 bytes");
}

function prefix(integrity: string): string {
  return `${MAGIC} ${process.versions.v8} ${integrity} `;
}

/** The GMAC key for a host key: its own derivation, so the host key is never an AES key itself. */
function gmacKey(key: Uint8Array): Buffer {
  return Buffer.from(hkdfSync("sha256", key, "", "airlock code cache gmac v3", 32));
}

function tag(key: Uint8Array, nonce: Uint8Array, head: Uint8Array, data: Uint8Array): Buffer {
  const gmac = createCipheriv("aes-256-gcm", gmacKey(key), nonce, { authTagLength: TAG_BYTES });
  gmac.setAAD(head);
  gmac.setAAD(data);
  gmac.final();
  return gmac.getAuthTag();
}

export type CodeCacheRead = { bytes: Buffer } | { miss: true } | { rejected: true };

export function readCodeCache(path: string, integrity: string, key: Uint8Array): CodeCacheRead {
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { miss: true };
    throw error;
  }
  try {
    const head = Buffer.from(prefix(integrity), "utf8");
    const headerLength = head.length + MAC_HEX + 1;
    const size = fstatSync(fd).size;
    if (size <= headerLength) return { miss: true };
    const header = Buffer.alloc(headerLength);
    if (readFully(fd, header, 0) < headerLength || !header.subarray(0, head.length).equals(head))
      return { miss: true };
    const given = header.subarray(head.length, head.length + MAC_HEX).toString("latin1");
    if (header[headerLength - 1] !== 0x0a || !/^[0-9a-f]+$/.test(given)) return { rejected: true };
    // the bytes in a buffer of their own (offset 0, the whole ArrayBuffer): V8 is handed them
    // without another copy (bundle-compiler.ts); a file that changed size meanwhile fails the tag
    const bytes = Buffer.allocUnsafeSlow(size - headerLength);
    if (readFully(fd, bytes, headerLength) < bytes.length) return { rejected: true };
    const nonce = Buffer.from(given.slice(0, NONCE_BYTES * 2), "hex");
    const ok = timingSafeEqual(
      Buffer.from(given.slice(NONCE_BYTES * 2), "hex"),
      tag(key, nonce, head, bytes),
    );
    return ok ? { bytes } : { rejected: true };
  } finally {
    closeSync(fd);
  }
}

/** Reads into all of `into` from `position` on, or up to the end of the file; the bytes read. */
function readFully(fd: number, into: Buffer, position: number): number {
  let done = 0;
  while (done < into.length) {
    const n = readSync(fd, into, done, into.length - done, position + done);
    if (n === 0) break;
    done += n;
  }
  return done;
}

export function writeCodeCache(path: string, integrity: string, data: Uint8Array, key: Uint8Array): void {
  mkdirSync(dirname(path), { recursive: true });
  const head = prefix(integrity);
  const nonce = randomBytes(NONCE_BYTES);
  const mac = tag(key, nonce, Buffer.from(head, "utf8"), data);
  const line = `${head}${nonce.toString("hex")}${mac.toString("hex")}\n`;
  const temp = `${path}.${process.pid}.tmp`;
  writeFileSync(temp, Buffer.concat([Buffer.from(line, "utf8"), data]));
  renameSync(temp, path);
}

/** Removes a cache file that failed authentication (it is never loaded). */
export function discardCodeCache(path: string): void {
  rmSync(path, { force: true });
}
