import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { BUNDLE_PATH, buildWebRuntime } from "./build.ts";

describe("the committed Web runtime bundle", () => {
  it("is what build.ts builds from isolate/ and the locked dependencies (run it after a change)", async () => {
    const committed = readFileSync(BUNDLE_PATH, "utf8");
    expect((await buildWebRuntime()) === committed).toBe(true);
  });

  it("defines the installer global and nothing that reads SharedArrayBuffer from the context", () => {
    const committed = readFileSync(BUNDLE_PATH, "utf8");
    expect(committed).toContain("__airlockWebRuntime");
    expect(committed.startsWith('"use strict";')).toBe(true);
    expect(committed.match(/globalThis\.SharedArrayBuffer|[^.\w]SharedArrayBuffer\.prototype/g)).toBeNull();
  });
});
