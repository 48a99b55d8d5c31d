// A tool's result JSON is refused when any key reads "__proto__", however it is spelled, and taken
// otherwise, whether or not its text needs the slower (reviver) parse.
import { describe, expect, it } from "vitest";
import { decodeResult } from "./call-io.ts";

const MAX = 1 << 20;

describe("decodeResult", () => {
  it("refuses a __proto__ key, written out or spelled with \\u escapes, at any depth", () => {
    for (const json of [
      '{"__proto__":{"polluted":1}}',
      '{"content":[],"structuredContent":{"a":{"__proto__":1}}}',
      '{"\\u005f_proto__":{"polluted":1}}',
      '{"structuredContent":{"\\u005f\\u005fproto\\u005f\\u005f":1}}',
    ]) {
      expect(() => decodeResult(json, MAX), json).toThrow(
        expect.objectContaining({ code: "AIRLOCK_SANDBOX_RESULT_INVALID" }),
      );
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("takes a result with or without escapes, and a value that only mentions __proto__", () => {
    expect(decodeResult('{"content":[{"type":"text","text":"hi"}]}', MAX).content).toEqual([
      { type: "text", text: "hi" },
    ]);
    expect(decodeResult('{"content":[{"type":"text","text":"a\\u0001b"}]}', MAX).content).toEqual([
      { type: "text", text: "a\u0001b" },
    ]);
    expect(decodeResult('{"content":[{"type":"text","text":"__proto__"}]}', MAX).content).toEqual([
      { type: "text", text: "__proto__" },
    ]);
  });
});
