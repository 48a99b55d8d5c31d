// The render plugin's pure encoders, checked byte by byte: a PNG any decoder accepts (signature,
// IHDR, CRCs, a zlib stream node:zlib inflates back to the exact scanlines), base64 and
// RFC 4180 CSV.
import { inflateSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { base64 } from "./base64.ts";
import { barChart } from "./chart.ts";
import { toCsv } from "./csv.ts";
import { crc32, encodePng, PNG_SIGNATURE } from "./png.ts";

function chunks(png: Uint8Array): Array<{ type: string; data: Uint8Array; crcOk: boolean }> {
  const view = new DataView(png.buffer, png.byteOffset);
  const out = [];
  for (let o = 8; o < png.length; ) {
    const len = view.getUint32(o);
    const type = String.fromCharCode(...png.subarray(o + 4, o + 8));
    const data = png.subarray(o + 8, o + 8 + len);
    out.push({ type, data, crcOk: view.getUint32(o + 8 + len) === crc32(png, o + 4, o + 8 + len) });
    o += 12 + len;
  }
  return out;
}

describe("encodePng", () => {
  it("writes a PNG whose chunks carry valid CRCs and whose pixels inflate back exactly", () => {
    const canvas = barChart([3, 1, 2], 40, 30);
    const png = encodePng(canvas.width, canvas.height, canvas.pixels);
    expect([...png.subarray(0, 8)]).toEqual(PNG_SIGNATURE);
    const parts = chunks(png);
    expect(parts.map((c) => c.type)).toEqual(["IHDR", "IDAT", "IEND"]);
    expect(parts.every((c) => c.crcOk)).toBe(true);
    const ihdr = new DataView(parts[0]!.data.buffer, parts[0]!.data.byteOffset);
    expect([ihdr.getUint32(0), ihdr.getUint32(4)]).toEqual([40, 30]);
    const raw = inflateSync(parts[1]!.data);
    expect(raw.length).toBe(30 * (1 + 40 * 4));
    expect([...raw.subarray(1, 1 + 40 * 4)]).toEqual([...canvas.pixels.subarray(0, 40 * 4)]);
  });

  it("compresses flat colour and still inflates to the exact scanlines", () => {
    const canvas = barChart([5, 2, 9, 4], 320, 200);
    const png = encodePng(canvas.width, canvas.height, canvas.pixels);
    expect(png.length).toBeLessThan(canvas.pixels.length / 20);
    const raw = inflateSync(chunks(png).find((c) => c.type === "IDAT")!.data);
    for (let y = 0; y < 200; y++) {
      expect(raw[y * 1281]).toBe(0);
      expect(
        raw
          .subarray(y * 1281 + 1, (y + 1) * 1281)
          .equals(Buffer.from(canvas.pixels.subarray(y * 1280, (y + 1) * 1280))),
      ).toBe(true);
    }
  });

  it("refuses pixel data of the wrong length", () => {
    expect(() => encodePng(2, 2, new Uint8Array(3))).toThrow(/width\*height\*4/);
  });

  it("draws the tallest bar for the largest value", () => {
    const c = barChart([1, 4], 40, 40);
    const colouredRows = (x: number) =>
      Array.from({ length: 40 }, (_, y) => c.pixels[(y * 40 + x) * 4]).filter((r) => r !== 255).length;
    expect(colouredRows(25)).toBeGreaterThan(colouredRows(13));
    expect(colouredRows(13)).toBeGreaterThan(1);
  });
});

describe("toCsv", () => {
  it("quotes fields holding commas, quotes and newlines, and ends lines with CRLF", () => {
    const csv = toCsv(
      ["name", "note"],
      [
        ["a,b", 'say "hi"'],
        ["plain", "two\nlines"],
      ],
    );
    expect(csv).toBe('name,note\r\n"a,b","say ""hi"""\r\nplain,"two\nlines"\r\n');
  });

  it("fills missing cells with empty fields", () => {
    expect(toCsv(["a", "b"], [["1"]])).toBe("a,b\r\n1,\r\n");
  });
});

describe("base64", () => {
  it("matches Node's encoding for every padding case", () => {
    for (const n of [0, 1, 2, 3, 4, 5, 255, 20_000]) {
      const bytes = Uint8Array.from({ length: n }, (_, i) => (i * 37) & 255);
      expect(base64(bytes)).toBe(Buffer.from(bytes).toString("base64"));
    }
  });
});
