import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { BUNDLE_PATH, buildWebRuntime, URL_BUNDLE_PATH } from "./build.ts";
import { oneByte } from "./sources.ts";

describe("the committed Web runtime bundles", () => {
  it("are what build.ts builds from isolate/ and the locked dependencies (run it after a change)", async () => {
    const { core, url } = await buildWebRuntime();
    expect(core === readFileSync(BUNDLE_PATH, "utf8")).toBe(true);
    expect(url === readFileSync(URL_BUNDLE_PATH, "utf8")).toBe(true);
  });

  it("define the installer global and nothing that reads SharedArrayBuffer from the context", () => {
    const committed = readFileSync(BUNDLE_PATH, "utf8");
    expect(committed).toContain("__airlockWebRuntime");
    expect(committed.startsWith('"use strict";')).toBe(true);
    for (const path of [BUNDLE_PATH, URL_BUNDLE_PATH]) {
      const source = readFileSync(path, "utf8");
      expect(source.match(/globalThis\.SharedArrayBuffer|[^.\w]SharedArrayBuffer\.prototype/g)).toBeNull();
      expect(/[^\x20-\x7e\n]/.test(source)).toBe(false); // ASCII: a one-byte string in V8
    }
  });

  it("leave URL's code (whatwg-url and tr46's tables) out of the script every isolate compiles", () => {
    const core = readFileSync(BUNDLE_PATH, "utf8");
    const url = readFileSync(URL_BUNDLE_PATH, "utf8");
    expect(core).not.toContain("xn--");
    expect(url).toContain("xn--");
    expect(core.length).toBeLessThan(url.length / 4);
  });
});

describe("oneByte", () => {
  it("keeps Latin-1 text and refuses a character past U+00FF, naming where it is", () => {
    expect(oneByte("caf\u00e9", "x")).toBe("caf\u00e9");
    expect(() => oneByte("a -> b \u2192 c", "the bootstrap")).toThrow(
      /the bootstrap has a character past U\+00FF at 7/,
    );
  });
});
