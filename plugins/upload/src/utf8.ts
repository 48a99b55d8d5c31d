// UTF-8 decoding without TextDecoder (not available inside the isolate).
// Contract: `valid` is false when any sequence is malformed (each such byte decodes to U+FFFD),
// which is how the upload plugin tells a text file from a binary one.

const LEAD_MASK = [0, 0x1f, 0x0f, 0x07] as const;

function continuationCount(b: number): number {
  if (b >= 0xc2 && b < 0xe0) return 1;
  if (b >= 0xe0 && b < 0xf0) return 2;
  if (b >= 0xf0 && b < 0xf5) return 3;
  return 0;
}

export function decodeUtf8(bytes: Uint8Array): { text: string; valid: boolean } {
  let text = "";
  let valid = true;
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i] as number;
    if (b < 0x80) {
      text += String.fromCharCode(b);
      i++;
      continue;
    }
    const need = continuationCount(b);
    let cp = b & (LEAD_MASK[need as 0 | 1 | 2 | 3] ?? 0);
    let ok = need > 0;
    for (let k = 1; ok && k <= need; k++) {
      const c = bytes[i + k];
      if (c === undefined || (c & 0xc0) !== 0x80) ok = false;
      else cp = (cp << 6) | (c & 0x3f);
    }
    if (!ok) {
      text += "\ufffd";
      valid = false;
      i++;
      continue;
    }
    text += String.fromCodePoint(cp);
    i += need + 1;
  }
  return { text, valid };
}
