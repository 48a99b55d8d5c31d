// TextEncoder and TextDecoder (WHATWG Encoding, UTF-8 only, as WinterTC requires), plus the
// UTF-8 helpers the bootstrap uses for ctx.artifacts and fetch bodies.
// Contract: encode() replaces lone surrogates with U+FFFD; decode() follows the Encoding
// standard's UTF-8 decoder (maximal subparts become one U+FFFD each; `fatal` throws a
// TypeError instead), strips one BOM unless `ignoreBOM`, and keeps a partial sequence between
// `{stream: true}` calls. The exported helpers are captured before plugin code runs, so a plugin
// that patches TextEncoder.prototype changes only what its own code sees.
import { apply, uncurry } from "./intrinsics.js";

const charCodeAt = uncurry(String.prototype.charCodeAt);
const fromCharCode = String.fromCharCode;
const U8 = Uint8Array;
const isView = ArrayBuffer.isView;
const ArrayBufferCtor = ArrayBuffer;
const TypeErrorCtor = TypeError;
const RangeErrorCtor = RangeError;
const StringCtor = String;
const toLowerCase = uncurry(String.prototype.toLowerCase);
const trim = uncurry(String.prototype.trim);
const stringSlice = uncurry(String.prototype.slice);

/** UTF-8 bytes of `text` (lone surrogates → U+FFFD). */
export function utf8Encode(text) {
  const s = StringCtor(text);
  const out = new U8(s.length * 3);
  const n = encodeInto(s, out).written;
  return n === out.length ? out : new U8(out.buffer.slice(0, n));
}

function encodeInto(s, dest) {
  let read = 0;
  let w = 0;
  const cap = dest.length;
  for (let i = 0; i < s.length; i++) {
    let c = charCodeAt(s, i);
    let units = 1;
    if (c >= 0xd800 && c < 0xdc00 && i + 1 < s.length) {
      const d = charCodeAt(s, i + 1);
      if (d >= 0xdc00 && d < 0xe000) {
        c = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00);
        units = 2;
      }
    }
    if (c >= 0xd800 && c < 0xe000) c = 0xfffd;
    if (c < 0x80) {
      if (w + 1 > cap) break;
      dest[w++] = c;
    } else if (c < 0x800) {
      if (w + 2 > cap) break;
      dest[w++] = 0xc0 | (c >> 6);
      dest[w++] = 0x80 | (c & 63);
    } else if (c < 0x10000) {
      if (w + 3 > cap) break;
      dest[w++] = 0xe0 | (c >> 12);
      dest[w++] = 0x80 | ((c >> 6) & 63);
      dest[w++] = 0x80 | (c & 63);
    } else {
      if (w + 4 > cap) break;
      dest[w++] = 0xf0 | (c >> 18);
      dest[w++] = 0x80 | ((c >> 12) & 63);
      dest[w++] = 0x80 | ((c >> 6) & 63);
      dest[w++] = 0x80 | (c & 63);
    }
    read += units;
    i += units - 1;
  }
  return { read, written: w };
}

/** Bytes of a BufferSource (a view on the same memory, never a copy). */
export function bytesOf(input, what) {
  if (input instanceof ArrayBufferCtor) return new U8(input);
  if (isView(input)) return new U8(input.buffer, input.byteOffset, input.byteLength);
  throw new TypeErrorCtor(`${what} must be an ArrayBuffer or an ArrayBuffer view`);
}

const CHUNK = 0x2000;

/**
 * The Encoding standard's UTF-8 decoder over `bytes` from a carried state; returns the text and
 * the state to carry (bytes still needed / seen, code point so far, bounds).
 */
function decodeUtf8(bytes, state, fatal, flush) {
  let { needed, seen, cp, lower, upper } = state;
  let out = "";
  const units = [];
  const push = (u) => {
    units[units.length] = u;
    if (units.length >= CHUNK) {
      out += apply(fromCharCode, null, units);
      units.length = 0;
    }
  };
  const bad = () => {
    if (fatal) throw new TypeErrorCtor("The encoded data was not valid UTF-8");
    push(0xfffd);
  };
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i];
    if (needed === 0) {
      if (b < 0x80) push(b);
      else if (b >= 0xc2 && b <= 0xdf) {
        needed = 1;
        cp = b & 0x1f;
      } else if (b >= 0xe0 && b <= 0xef) {
        if (b === 0xe0) lower = 0xa0;
        if (b === 0xed) upper = 0x9f;
        needed = 2;
        cp = b & 0xf;
      } else if (b >= 0xf0 && b <= 0xf4) {
        if (b === 0xf0) lower = 0x90;
        if (b === 0xf4) upper = 0x8f;
        needed = 3;
        cp = b & 0x7;
      } else bad();
      continue;
    }
    if (b < lower || b > upper) {
      needed = seen = cp = 0;
      lower = 0x80;
      upper = 0xbf;
      bad();
      i--; // reprocess this byte as the start of a new sequence
      continue;
    }
    lower = 0x80;
    upper = 0xbf;
    cp = (cp << 6) | (b & 0x3f);
    if (++seen !== needed) continue;
    if (cp >= 0x10000) {
      cp -= 0x10000;
      push(0xd800 + (cp >> 10));
      push(0xdc00 + (cp & 0x3ff));
    } else push(cp);
    needed = seen = cp = 0;
  }
  if (flush && needed !== 0) {
    needed = seen = cp = 0;
    lower = 0x80;
    upper = 0xbf;
    bad();
  }
  if (units.length > 0) out += apply(fromCharCode, null, units);
  return { text: out, state: { needed, seen, cp, lower, upper } };
}

const FRESH = { needed: 0, seen: 0, cp: 0, lower: 0x80, upper: 0xbf };

/** Text of UTF-8 `bytes` (replacement characters for invalid sequences, BOM kept). */
export function utf8Decode(bytes) {
  return decodeUtf8(bytes, FRESH, false, true).text;
}

const UTF8_LABELS = [
  "unicode-1-1-utf-8",
  "unicode11utf8",
  "unicode20utf8",
  "utf-8",
  "utf8",
  "x-unicode20utf8",
];

export class TextEncoder {
  get encoding() {
    return "utf-8";
  }
  encode(input = "") {
    return utf8Encode(StringCtor(input));
  }
  encodeInto(source, destination) {
    if (!(destination instanceof U8))
      throw new TypeErrorCtor("encodeInto's destination must be a Uint8Array");
    return encodeInto(StringCtor(source), destination);
  }
}

export class TextDecoder {
  #fatal;
  #ignoreBOM;
  #state = FRESH;
  #bomSeen = false;
  constructor(label = "utf-8", options = undefined) {
    const name = toLowerCase(trim(StringCtor(label)));
    let known = false;
    for (let i = 0; i < UTF8_LABELS.length; i++) if (UTF8_LABELS[i] === name) known = true;
    if (!known)
      throw new RangeErrorCtor(`The encoding "${StringCtor(label)}" is not supported (only utf-8 is)`);
    this.#fatal = options?.fatal === true;
    this.#ignoreBOM = options?.ignoreBOM === true;
  }
  get encoding() {
    return "utf-8";
  }
  get fatal() {
    return this.#fatal;
  }
  get ignoreBOM() {
    return this.#ignoreBOM;
  }
  decode(input = undefined, options = undefined) {
    const bytes = input === undefined ? new U8(0) : bytesOf(input, "TextDecoder.decode's input");
    const stream = options?.stream === true;
    const { text, state } = decodeUtf8(bytes, this.#state, this.#fatal, !stream);
    this.#state = stream ? state : FRESH;
    let out = text;
    if (!this.#bomSeen && out.length > 0) {
      this.#bomSeen = true;
      if (!this.#ignoreBOM && charCodeAt(out, 0) === 0xfeff) out = stringSlice(out, 1);
    }
    if (!stream) this.#bomSeen = false;
    return out;
  }
}
