import { describe, expect, it } from "vitest";
import { duplicateKey, forbiddenKey, hasLoneSurrogate } from "./strict-json.ts";

describe("strict JSON checks", () => {
  it("finds a duplicate key with its path, at any depth, and nothing in clean text", () => {
    expect(duplicateKey('{"a":1,"a":2}')).toEqual({ path: "$", key: "a" });
    expect(duplicateKey('{"x":[{"b":1},{"c":{"d":1,"d":2}}]}')).toEqual({ path: "$.x[1].c", key: "d" });
    expect(duplicateKey('{"a":"\\"a\\":","b":{"a":1},"c":["a","a"]}')).toBeNull();
    expect(duplicateKey('{"\\u0061":1,"a":2}')).toEqual({ path: "$", key: "a" });
    expect(duplicateKey('[{"a":1},{"a":1}]')).toBeNull();
  });

  it("finds lone surrogates, raw or escaped, and accepts pairs and escaped backslashes", () => {
    expect(hasLoneSurrogate(JSON.stringify({ k: "\ud800" }))).toBe(true);
    expect(hasLoneSurrogate(JSON.stringify({ ["\udc00"]: 1 }))).toBe(true);
    expect(hasLoneSurrogate('{"k":"\\uD83D"}')).toBe(true);
    expect(hasLoneSurrogate('{"k":"\\udc00x"}')).toBe(true);
    expect(hasLoneSurrogate(`{"k":"\ud800"}`)).toBe(true);
    expect(hasLoneSurrogate(JSON.stringify({ k: "😀 ok" }))).toBe(false);
    expect(hasLoneSurrogate('{"k":"\\ud83d\\ude00"}')).toBe(false);
    expect(hasLoneSurrogate('{"k":"\\\\ud800"}')).toBe(false);
  });

  it("finds __proto__, constructor and prototype used as keys, not as values", () => {
    expect(forbiddenKey('{"a":{"__proto__":{"x":1}}}')).toBe("__proto__");
    expect(forbiddenKey('{"constructor" : 1}')).toBe("constructor");
    expect(forbiddenKey('[{"prototype":1}]')).toBe("prototype");
    expect(forbiddenKey('{"a":"__proto__","b":"\\"constructor\\":"}')).toBeNull();
  });
});
