// How the upload plugin tells text from binary (textOf), on the standard TextDecoder.
import { describe, expect, it } from "vitest";
import { textOf } from "./deliver.ts";

describe("textOf", () => {
  it("decodes one- to four-byte sequences like Node does", () => {
    const text = "a,é,€,😀\r\n";
    expect(textOf(new Uint8Array(Buffer.from(text, "utf8")))).toBe(text);
  });

  it("reads a PNG signature and truncated sequences as binary", () => {
    expect(textOf(new Uint8Array([137, 80, 78, 71]))).toBeNull();
    expect(textOf(new Uint8Array([0xe2, 0x82]))).toBeNull();
  });
});
