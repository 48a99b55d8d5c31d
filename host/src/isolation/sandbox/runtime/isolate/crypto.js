// crypto.getRandomValues, crypto.randomUUID and crypto.subtle.digest.
// Randomness comes from the host's CSPRNG through one synchronous, data-only primitive
// (`random(n)`: a byte count in, that many fresh random bytes out; no state, no identity, no
// capability), pooled here so small requests (UUIDs) rarely leave the isolate. Digests are
// computed here in pure JS (@noble/hashes: SHA-1, SHA-256, SHA-384, SHA-512), loaded on first use.
import { sha1 } from "@noble/hashes/legacy.js";
import { sha256, sha384, sha512 } from "@noble/hashes/sha2.js";
import { bytesOf } from "./text.js";

const MAX_BYTES = 65536;
const POOL_BYTES = 1024;
const INTEGER_ARRAYS = [
  Int8Array,
  Uint8Array,
  Uint8ClampedArray,
  Int16Array,
  Uint16Array,
  Int32Array,
  Uint32Array,
  BigInt64Array,
  BigUint64Array,
];
const U8 = Uint8Array;
const hex = (b) => (b < 16 ? "0" : "") + b.toString(16);
const DIGESTS = { "SHA-1": sha1, "SHA-256": sha256, "SHA-384": sha384, "SHA-512": sha512 };

export function createCrypto(random, DOMException) {
  let pool = new U8(0);
  let used = 0;
  function fill(dest) {
    if (dest.length > POOL_BYTES / 4) {
      dest.set(new U8(random(dest.length)));
      return;
    }
    if (used + dest.length > pool.length) {
      pool = new U8(random(POOL_BYTES));
      used = 0;
    }
    dest.set(pool.subarray(used, used + dest.length));
    pool.fill(0, used, used + dest.length);
    used += dest.length;
  }

  function getRandomValues(array) {
    if (!INTEGER_ARRAYS.some((C) => array instanceof C)) {
      throw new DOMException("getRandomValues needs an integer typed array", "TypeMismatchError");
    }
    if (array.byteLength > MAX_BYTES) {
      throw new DOMException(`getRandomValues accepts at most ${MAX_BYTES} bytes`, "QuotaExceededError");
    }
    fill(new U8(array.buffer, array.byteOffset, array.byteLength));
    return array;
  }

  function randomUUID() {
    const b = new U8(16);
    fill(b);
    b[6] = (b[6] & 0x0f) | 0x40;
    b[8] = (b[8] & 0x3f) | 0x80;
    let s = "";
    for (let i = 0; i < 16; i++) s += (i === 4 || i === 6 || i === 8 || i === 10 ? "-" : "") + hex(b[i]);
    return s;
  }

  async function digest(algorithm, data) {
    const name = String(
      typeof algorithm === "object" && algorithm !== null ? algorithm.name : algorithm,
    ).toUpperCase();
    const fn = Object.hasOwn(DIGESTS, name) ? DIGESTS[name] : undefined;
    if (fn === undefined)
      throw new DOMException(`digest supports ${Object.keys(DIGESTS).join(", ")}`, "NotSupportedError");
    const bytes = new U8(bytesOf(data, "digest's data")); // a copy: the caller may change its buffer meanwhile
    return fn(bytes).buffer;
  }

  class SubtleCrypto {
    constructor(key) {
      if (key !== SUBTLE) throw new TypeError("Illegal constructor");
    }
    digest(algorithm, data) {
      return digest(algorithm, data);
    }
  }
  const SUBTLE = {};
  const subtle = new SubtleCrypto(SUBTLE);
  class Crypto {
    constructor(key) {
      if (key !== SUBTLE) throw new TypeError("Illegal constructor");
    }
    get subtle() {
      return subtle;
    }
    getRandomValues(array) {
      return getRandomValues(array);
    }
    randomUUID() {
      return randomUUID();
    }
  }
  return { crypto: new Crypto(SUBTLE), Crypto, SubtleCrypto, fill };
}
