// V8 code cache files: keyed by bundle integrity and V8 version, authenticated by an HMAC under
// the host key; a file that does not verify is rejected, anything else foreign reads as a miss.
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { readCodeCache, writeCodeCache } from "./code-cache.ts";

const KEY = randomBytes(32);

describe("code cache files", () => {
  const dir = mkdtempSync(join(tmpdir(), "airlock-cc-"));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("reads back what was written for the same integrity and key", () => {
    const path = join(dir, "a", "b.v8");
    writeCodeCache(path, "sha512-one", new Uint8Array([1, 2, 3]), KEY);
    const read = readCodeCache(path, "sha512-one", KEY);
    expect("bytes" in read && [...read.bytes]).toEqual([1, 2, 3]);
  });

  it("reads a missing file, another bundle's cache or a foreign file as a miss", () => {
    const path = join(dir, "c.v8");
    expect(readCodeCache(path, "sha512-one", KEY)).toEqual({ miss: true });
    writeCodeCache(path, "sha512-one", new Uint8Array([1]), KEY);
    expect(readCodeCache(path, "sha512-two", KEY)).toEqual({ miss: true });
    writeFileSync(path, "not a cache");
    expect(readCodeCache(path, "sha512-one", KEY)).toEqual({ miss: true });
  });

  it("rejects a cache whose bytes, MAC or key differ", () => {
    const path = join(dir, "d.v8");
    writeCodeCache(path, "sha512-one", new Uint8Array([1, 2, 3, 4]), KEY);
    expect(readCodeCache(path, "sha512-one", randomBytes(32))).toEqual({ rejected: true });
    const file = readFileSync(path);
    const flipped = Buffer.from(file);
    flipped[flipped.length - 1] = (flipped.at(-1) as number) ^ 1;
    writeFileSync(path, flipped);
    expect(readCodeCache(path, "sha512-one", KEY)).toEqual({ rejected: true });
    const badMac = Buffer.from(file);
    const at = file.indexOf(0x0a) - 1;
    badMac[at] = badMac[at] === 0x30 ? 0x31 : 0x30;
    writeFileSync(path, badMac);
    expect(readCodeCache(path, "sha512-one", KEY)).toEqual({ rejected: true });
  });
});
