// Base64 decoding without atob/Buffer (neither exists inside the isolate). Returns null for
// text that is not base64 (wrong alphabet, bad padding or length).
const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const VALUE = new Map([...ALPHABET].map((c, i) => [c, i] as const));

export function fromBase64(text: string): Uint8Array | null {
  const clean = text.replace(/\s+/g, "");
  if (clean.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(clean)) return null;
  const pad = clean.endsWith("==") ? 2 : clean.endsWith("=") ? 1 : 0;
  const out = new Uint8Array((clean.length / 4) * 3 - pad);
  let o = 0;
  for (let i = 0; i < clean.length; i += 4) {
    const n =
      ((VALUE.get(clean[i] as string) ?? 0) << 18) |
      ((VALUE.get(clean[i + 1] as string) ?? 0) << 12) |
      ((VALUE.get(clean[i + 2] as string) ?? 0) << 6) |
      (VALUE.get(clean[i + 3] as string) ?? 0);
    if (o < out.length) out[o++] = n >>> 16;
    if (o < out.length) out[o++] = (n >>> 8) & 255;
    if (o < out.length) out[o++] = n & 255;
  }
  return out;
}
