// V8 code cache files: keyed by bundle integrity and V8 version, authenticated by a GMAC under
// a key derived from the host key; a file that does not verify is rejected, anything else
// foreign (an older format's file among them) reads as a miss.
import { createHmac, randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { readCodeCache, writeCodeCache } from "./code-cache.ts";

const KEY = randomBytes(32);

describe("code cache files", () => {
  const dir = mkdtempSync(join(tmpdir(), "airlock-cc-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

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
    // the nonce is authenticated too: another nonce with the same tag does not verify
    const badNonce = Buffer.from(file);
    const nonceAt = file.indexOf(0x0a) - 56;
    badNonce[nonceAt] = badNonce[nonceAt] === 0x30 ? 0x31 : 0x30;
    writeFileSync(path, badNonce);
    expect(readCodeCache(path, "sha512-one", KEY)).toEqual({ rejected: true });
    const upper = Buffer.from(
      file.toString("latin1").replace(/[0-9a-f]{56}\n/, (m) => m.toUpperCase()),
      "latin1",
    );
    writeFileSync(path, upper);
    expect(readCodeCache(path, "sha512-one", KEY)).toEqual({ rejected: true });
  });

  it("draws a new nonce for every write, so one cache's tags never repeat", () => {
    const path = join(dir, "e.v8");
    const lines = new Set<string>();
    for (let i = 0; i < 8; i++) {
      writeCodeCache(path, "sha512-one", new Uint8Array([9, 9]), KEY);
      const file = readFileSync(path);
      lines.add(file.subarray(0, file.indexOf(0x0a)).toString("latin1"));
      expect("bytes" in readCodeCache(path, "sha512-one", KEY)).toBe(true);
    }
    expect(lines.size).toBe(8);
  });

  it("reads a file in the older HMAC format (v2) as a miss, never as a cache", () => {
    const path = join(dir, "f.v8");
    const head = `airlock-code-cache v2 ${process.versions.v8} sha512-one `;
    const data = Buffer.from([1, 2, 3]);
    const mac = createHmac("sha256", KEY).update(head).update(data).digest("hex");
    writeFileSync(path, Buffer.concat([Buffer.from(`${head}${mac}\n`), data]));
    expect(readCodeCache(path, "sha512-one", KEY)).toEqual({ miss: true });
  });
});
