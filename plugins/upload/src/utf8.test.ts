// decodeUtf8 is how the upload plugin tells text from binary without TextDecoder.
import { describe, expect, it } from "vitest";
import { decodeUtf8 } from "./utf8.ts";

describe("decodeUtf8", () => {
  it("decodes one- to four-byte sequences like Node does", () => {
    const text = "a,é,€,😀\r\n";
    expect(decodeUtf8(new Uint8Array(Buffer.from(text, "utf8")))).toEqual({ text, valid: true });
  });

  it("marks a PNG signature and truncated sequences as not valid text", () => {
    expect(decodeUtf8(new Uint8Array([137, 80, 78, 71])).valid).toBe(false);
    expect(decodeUtf8(new Uint8Array([0xe2, 0x82])).valid).toBe(false);
  });
});
