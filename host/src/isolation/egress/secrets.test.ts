import { describe, expect, it } from "vitest";
import { MIN_REDACT_LENGTH, REDACTED, redactor } from "./secrets.ts";

const text = (b: Uint8Array) => Buffer.from(b).toString("utf8");

describe("redactor", () => {
  it("scrubs every occurrence of every value from strings and bytes", () => {
    const r = redactor(["s3cret-value", "tok-abcdef"]);
    expect(r.text("a s3cret-value b s3cret-value tok-abcdef")).toBe(
      `a ${REDACTED} b ${REDACTED} ${REDACTED}`,
    );
    const out = r.bytes(new TextEncoder().encode("[s3cret-value|tok-abcdef|s3cret-value]"));
    expect(text(out)).toBe(`[${REDACTED}|${REDACTED}|${REDACTED}]`);
  });

  it("scrubs the URL-encoded, JSON-escaped and base64 forms of a value too", () => {
    const value = 'pa$$ "w/rd"+?';
    const r = redactor([value]);
    const forms = [
      encodeURIComponent(value),
      JSON.stringify(value).slice(1, -1),
      Buffer.from(value).toString("base64"),
      Buffer.from(value).toString("base64url"),
    ];
    for (const form of forms) expect(r.text(`<${form}>`)).toBe(`<${REDACTED}>`);
    expect(text(r.bytes(new TextEncoder().encode(forms.join("|"))))).not.toMatch(/pa|cGEk/);
  });

  it("scrubs the longer of two overlapping values first, leaving no fragment", () => {
    const r = redactor(["abcd", "abcdefgh"]);
    expect(r.text("xabcdefghx")).toBe(`x${REDACTED}x`);
  });

  it("returns the same bytes when nothing matches, and an owned copy when something did", () => {
    const r = redactor(["s3cret-value"]);
    const clean = new TextEncoder().encode("nothing to see");
    expect(r.bytes(clean)).toBe(clean);
    const dirty = r.bytes(new TextEncoder().encode("s3cret-value"));
    expect(dirty.byteOffset).toBe(0);
    expect(dirty.buffer.byteLength).toBe(dirty.byteLength);
  });

  it(`leaves values shorter than ${MIN_REDACT_LENGTH} characters alone (they would match ordinary text)`, () => {
    const r = redactor(["abc"]);
    expect(r.text("abc abc")).toBe("abc abc");
  });

  it("is the identity without secrets", () => {
    const r = redactor([]);
    const bytes = new Uint8Array([1, 2, 3]);
    expect(r.bytes(bytes)).toBe(bytes);
    expect(r.text("x")).toBe("x");
  });
});
