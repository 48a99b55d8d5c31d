// V8 code cache files: keyed by bundle integrity and V8 version, anything else reads as a miss.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { readCodeCache, writeCodeCache } from "./code-cache.ts";

describe("code cache files", () => {
  const dir = mkdtempSync(join(tmpdir(), "airlock-cc-"));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("reads back what was written for the same integrity", () => {
    const path = join(dir, "a", "b.v8");
    writeCodeCache(path, "sha512-one", new Uint8Array([1, 2, 3]));
    expect([...(readCodeCache(path, "sha512-one") ?? [])]).toEqual([1, 2, 3]);
  });

  it("reads a missing file, another bundle's cache or a foreign file as a miss", () => {
    const path = join(dir, "c.v8");
    expect(readCodeCache(path, "sha512-one")).toBeUndefined();
    writeCodeCache(path, "sha512-one", new Uint8Array([1]));
    expect(readCodeCache(path, "sha512-two")).toBeUndefined();
    writeFileSync(path, "not a cache");
    expect(readCodeCache(path, "sha512-one")).toBeUndefined();
  });
});
