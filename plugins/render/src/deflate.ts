// A small deflate (RFC 1951) for PNG pixel data, pure JS for the isolate: one block with the
// fixed Huffman code, and LZ77 matches at distance 4 only (the previous RGBA pixel), which is
// what flat-colour charts repeat. Every inflater decodes it; zlib wrapping is in png.ts.
// Invariant: output inflates to exactly the input (the tests check it with node:zlib).

const LENGTH_BASE = [
  3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195,
  227, 258,
];
const LENGTH_EXTRA = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0];
const DISTANCE = 4;
const DISTANCE_CODE = 3; // codes 0..3 are distances 1..4, no extra bits

class BitWriter {
  private readonly out: number[] = [];
  private acc = 0;
  private n = 0;

  bits(value: number, count: number): void {
    for (let i = 0; i < count; i++) {
      this.acc |= ((value >>> i) & 1) << this.n;
      if (++this.n === 8) this.flushByte();
    }
  }

  /** A Huffman code: most significant bit first. */
  code(code: number, length: number): void {
    for (let i = length - 1; i >= 0; i--) this.bits((code >>> i) & 1, 1);
  }

  private flushByte(): void {
    this.out.push(this.acc);
    this.acc = 0;
    this.n = 0;
  }

  finish(): Uint8Array {
    if (this.n > 0) this.flushByte();
    return new Uint8Array(this.out);
  }
}

function symbol(w: BitWriter, sym: number): void {
  if (sym < 144) w.code(0x30 + sym, 8);
  else if (sym < 256) w.code(0x190 + sym - 144, 9);
  else if (sym < 280) w.code(sym - 256, 7);
  else w.code(0xc0 + sym - 280, 8);
}

function match(w: BitWriter, length: number): void {
  let i = LENGTH_BASE.length - 1;
  while ((LENGTH_BASE[i] as number) > length) i--;
  symbol(w, 257 + i);
  w.bits(length - (LENGTH_BASE[i] as number), LENGTH_EXTRA[i] as number);
  w.code(DISTANCE_CODE, 5);
}

/** Raw deflate stream of `data` (no zlib header). */
export function deflate(data: Uint8Array): Uint8Array {
  const w = new BitWriter();
  w.bits(1, 1); // final block
  w.bits(1, 2); // fixed Huffman
  let i = 0;
  while (i < data.length) {
    let run = 0;
    if (i >= DISTANCE) {
      while (run < 258 && i + run < data.length && data[i + run] === data[i + run - DISTANCE]) run++;
    }
    if (run >= 3) {
      match(w, run);
      i += run;
    } else {
      symbol(w, data[i] as number);
      i++;
    }
  }
  symbol(w, 256);
  return w.finish();
}
