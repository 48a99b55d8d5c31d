// atob and btoa (HTML's forgiving-base64), plus byte helpers for code that has bytes, not
// binary strings. btoa refuses a character above U+00FF and atob refuses input that is not
// base64 with a DOMException "InvalidCharacterError", as browsers, Workers and Deno do.
import { apply, uncurry } from "./intrinsics.js";

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const charCodeAt = uncurry(String.prototype.charCodeAt);
const fromCharCode = String.fromCharCode;
const StringCtor = String;
const DECODE = new Int16Array(128).fill(-1);
for (let i = 0; i < 64; i++) DECODE[charCodeAt(ALPHABET, i)] = i;

export function createBase64(DOMException) {
  function invalid(message) {
    return new DOMException(message, "InvalidCharacterError");
  }
  function btoa(...args) {
    if (args.length === 0) throw new TypeError("btoa needs 1 argument");
    const s = StringCtor(args[0]);
    let out = "";
    for (let i = 0; i < s.length; i += 3) {
      const a = charCodeAt(s, i);
      const b = i + 1 < s.length ? charCodeAt(s, i + 1) : 0;
      const c = i + 2 < s.length ? charCodeAt(s, i + 2) : 0;
      if (a > 255 || b > 255 || c > 255) throw invalid("btoa: the string has a character outside Latin-1");
      const n = (a << 16) | (b << 8) | c;
      out += ALPHABET[(n >> 18) & 63] + ALPHABET[(n >> 12) & 63];
      out += i + 1 < s.length ? ALPHABET[(n >> 6) & 63] : "=";
      out += i + 2 < s.length ? ALPHABET[n & 63] : "=";
    }
    return out;
  }
  function atob(...args) {
    if (args.length === 0) throw new TypeError("atob needs 1 argument");
    const s = StringCtor(args[0]);
    const values = [];
    for (let i = 0; i < s.length; i++) {
      const c = charCodeAt(s, i);
      if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0c || c === 0x0d) continue;
      values[values.length] = c;
    }
    let len = values.length;
    if (len % 4 === 0 && len > 0 && values[len - 1] === 0x3d) {
      len--;
      if (values[len - 1] === 0x3d) len--;
    }
    if (len % 4 === 1) throw invalid("atob: the string is not correctly encoded");
    const codes = [];
    let acc = 0;
    let bits = 0;
    let out = "";
    for (let i = 0; i < len; i++) {
      const c = values[i];
      const v = c < 128 ? DECODE[c] : -1;
      if (v < 0) throw invalid("atob: the string is not correctly encoded");
      acc = (acc << 6) | v;
      bits += 6;
      if (bits >= 8) {
        bits -= 8;
        codes[codes.length] = (acc >> bits) & 0xff;
        if (codes.length >= 0x2000) {
          out += apply(fromCharCode, null, codes);
          codes.length = 0;
        }
      }
    }
    return out + apply(fromCharCode, null, codes);
  }
  return { atob, btoa };
}
