// Headers, Request and Response (Fetch standard shapes, without streams: a body is bytes held
// in memory, read once with text()/json()/arrayBuffer()/bytes()), and the conversion of
// ctx.fetch's arguments into the plain data the host's fetch capability accepts
// ({url, init: {method, headers, body, timeoutMs, oauth}}) and of its reply into a Response.
// Header values may be ctx.secrets.ref() placeholders only in a plain-object `headers`: the
// host substitutes them; a Headers object holds strings only.
import { arraySort, MapCtor, mapDelete, mapGet, mapHas, mapSet, uncurry } from "./intrinsics.js";
import { bytesOf, utf8Decode, utf8Encode } from "./text.js";

// captured: a plugin that patches Map or Array prototypes must not change what its Headers
// (and so ctx.fetch's replies) hold
const push = uncurry(Array.prototype.push);
const join = uncurry(Array.prototype.join);
const slice = uncurry(Array.prototype.slice);
const mapForEach = uncurry(Map.prototype.forEach);

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const NULL_BODY = new Set([101, 103, 204, 205, 304]);
const U8 = Uint8Array;

function normalizeValue(value) {
  const v = String(value).replace(/^[\t\n\r ]+|[\t\n\r ]+$/g, "");
  if (/[\r\n\0]/.test(v)) throw new TypeError("a header value may not contain CR, LF or NUL");
  return v;
}
function normalizeName(name) {
  const n = String(name);
  if (!TOKEN.test(n)) throw new TypeError(`${JSON.stringify(n)} is not a valid header name`);
  return n.toLowerCase();
}

export class Headers {
  #map = new MapCtor(); // lower-case name → string[]
  constructor(init = undefined) {
    if (init === undefined || init === null) return;
    if (typeof init !== "object")
      throw new TypeError("Headers init must be an object, an array of pairs or Headers");
    if (init instanceof Headers) {
      mapForEach(init.#map, (v, k) => mapSet(this.#map, k, slice(v)));
    } else if (typeof init[Symbol.iterator] === "function") {
      for (const pair of init) {
        const p = [...pair];
        if (p.length !== 2) throw new TypeError("each header pair must have a name and a value");
        this.append(p[0], p[1]);
      }
    } else {
      for (const key of Object.keys(init)) this.append(key, init[key]);
    }
  }
  append(name, value) {
    const n = normalizeName(name);
    const v = normalizeValue(value);
    const list = mapGet(this.#map, n);
    if (list) push(list, v);
    else mapSet(this.#map, n, [v]);
  }
  set(name, value) {
    mapSet(this.#map, normalizeName(name), [normalizeValue(value)]);
  }
  delete(name) {
    mapDelete(this.#map, normalizeName(name));
  }
  get(name) {
    const list = mapGet(this.#map, normalizeName(name));
    return list === undefined ? null : join(list, ", ");
  }
  getSetCookie() {
    return slice(mapGet(this.#map, "set-cookie") ?? []);
  }
  has(name) {
    return mapHas(this.#map, normalizeName(name));
  }
  forEach(fn, thisArg = undefined) {
    for (const [k, v] of this.entries()) fn.call(thisArg, v, k, this);
  }
  *entries() {
    const names = [];
    mapForEach(this.#map, (_v, k) => push(names, k));
    arraySort(names);
    for (let i = 0; i < names.length; i++) {
      const n = names[i];
      const list = mapGet(this.#map, n);
      if (list === undefined) continue;
      if (n === "set-cookie") for (let j = 0; j < list.length; j++) yield [n, list[j]];
      else yield [n, join(list, ", ")];
    }
  }
  *keys() {
    for (const [k] of this.entries()) yield k;
  }
  *values() {
    for (const [, v] of this.entries()) yield v;
  }
  [Symbol.iterator]() {
    return this.entries();
  }
  get [Symbol.toStringTag]() {
    return "Headers";
  }
}

/** Body bytes and the content type a body init implies. */
function extractBody(body, URLSearchParamsCtor) {
  if (body === undefined || body === null) return { bytes: null, type: null };
  if (typeof body === "string") return { bytes: utf8Encode(body), type: "text/plain;charset=UTF-8" };
  if (body instanceof ArrayBuffer || ArrayBuffer.isView(body))
    return { bytes: new U8(bytesOf(body, "body")), type: null };
  const params = URLSearchParamsCtor();
  if (params !== undefined && body instanceof params) {
    return { bytes: utf8Encode(body.toString()), type: "application/x-www-form-urlencoded;charset=UTF-8" };
  }
  throw new TypeError(
    "a body must be a string, an ArrayBuffer, a typed array or URLSearchParams (no streams here)",
  );
}

class Body {
  #bytes;
  #used = false;
  constructor(bytes) {
    this.#bytes = bytes;
  }
  get bodyUsed() {
    return this.#used;
  }
  static take(self) {
    if (self.#used) throw new TypeError("the body has already been read");
    self.#used = true;
    return self.#bytes ?? new U8(0);
  }
  static peek(self) {
    return self.#bytes;
  }
  async arrayBuffer() {
    return take(this).slice().buffer;
  }
  async bytes() {
    return take(this).slice();
  }
  async text() {
    return utf8Decode(take(this));
  }
  async json() {
    return JSON.parse(utf8Decode(take(this)));
  }
}
const take = Body.take;
const peek = Body.peek;
delete Body.take;
delete Body.peek;

export function createFetchShapes({ lazyURL, lazyURLSearchParams, isSignal }) {
  class Request extends Body {
    #url;
    #method;
    #headers;
    #signal;
    constructor(input, init = undefined) {
      const base = input instanceof Request ? input : null;
      const url = base ? base.#url : new (lazyURL())(String(input)).href;
      const method = init?.method !== undefined ? String(init.method) : base ? base.#method : "GET";
      const upper = method.toUpperCase();
      const normal = ["DELETE", "GET", "HEAD", "OPTIONS", "POST", "PUT", "PATCH"].includes(upper)
        ? upper
        : method;
      const extracted =
        init?.body !== undefined
          ? extractBody(init.body, lazyURLSearchParams)
          : { bytes: base ? peek(base) : null, type: null };
      if (extracted.bytes !== null && (normal === "GET" || normal === "HEAD")) {
        throw new TypeError(`a ${normal} request cannot have a body`);
      }
      super(extracted.bytes);
      this.#url = url;
      this.#method = normal;
      this.#headers = new Headers(
        init?.headers !== undefined ? init.headers : base ? base.#headers : undefined,
      );
      if (extracted.type !== null && !this.#headers.has("content-type"))
        this.#headers.set("content-type", extracted.type);
      const signal = init?.signal !== undefined ? init.signal : base ? base.#signal : null;
      if (signal !== null && !isSignal(signal)) throw new TypeError("signal must be an AbortSignal");
      this.#signal = signal;
    }
    get url() {
      return this.#url;
    }
    get method() {
      return this.#method;
    }
    get headers() {
      return this.#headers;
    }
    get signal() {
      return this.#signal;
    }
    get redirect() {
      return "follow";
    }
    clone() {
      if (this.bodyUsed) throw new TypeError("the body has already been read");
      return new Request(this);
    }
    get [Symbol.toStringTag]() {
      return "Request";
    }
  }

  let internal = false;
  class Response extends Body {
    #status;
    #statusText;
    #headers;
    #url = "";
    #redirected = false;
    constructor(body = null, init = undefined) {
      const status = init?.status === undefined ? 200 : Number(init.status);
      if (!internal && !(Number.isInteger(status) && status >= 200 && status <= 599)) {
        throw new RangeError("a Response status must be an integer from 200 to 599");
      }
      const extracted = extractBody(body, lazyURLSearchParams);
      if (!internal && extracted.bytes !== null && NULL_BODY.has(status)) {
        throw new TypeError(`a ${status} response cannot have a body`);
      }
      super(extracted.bytes);
      this.#status = status;
      this.#statusText = init?.statusText === undefined ? "" : String(init.statusText);
      this.#headers = new Headers(init?.headers);
      if (extracted.type !== null && !this.#headers.has("content-type"))
        this.#headers.set("content-type", extracted.type);
    }
    get status() {
      return this.#status;
    }
    get statusText() {
      return this.#statusText;
    }
    get ok() {
      return this.#status >= 200 && this.#status <= 299;
    }
    get headers() {
      return this.#headers;
    }
    get url() {
      return this.#url;
    }
    get redirected() {
      return this.#redirected;
    }
    get type() {
      return "default";
    }
    clone() {
      if (this.bodyUsed) throw new TypeError("the body has already been read");
      const copy = new Response(peek(this), { status: 200, headers: this.#headers });
      copy.#status = this.#status;
      copy.#statusText = this.#statusText;
      copy.#url = this.#url;
      copy.#redirected = this.#redirected;
      return copy;
    }
    static json(data, init = undefined) {
      const text = JSON.stringify(data);
      if (text === undefined) throw new TypeError("the data is not JSON-serialisable");
      const headers = new Headers(init?.headers);
      if (!headers.has("content-type")) headers.set("content-type", "application/json");
      return new Response(text, { ...init, headers });
    }
    static redirect(url, status = 302) {
      if (![301, 302, 303, 307, 308].includes(status))
        throw new RangeError("a redirect status must be 301, 302, 303, 307 or 308");
      return new Response(null, { status, headers: { location: new (lazyURL())(String(url)).href } });
    }
    static fromReply(reply) {
      internal = true;
      let r;
      try {
        r = new Response(reply.body, {
          status: reply.status,
          statusText: reply.statusText,
          headers: reply.headers,
        });
      } finally {
        internal = false;
      }
      r.#url = reply.url;
      r.#redirected = reply.redirected;
      return r;
    }
    get [Symbol.toStringTag]() {
      return "Response";
    }
  }
  const fromReply = Response.fromReply;
  delete Response.fromReply;

  /** ctx.fetch(input, init) → the capability's [url, init] (plain data), and the signal to honour. */
  function toRequest(input, init) {
    const req = input instanceof Request ? input : null;
    const url = req ? req.url : typeof input === "string" ? input : String(input);
    const out = {};
    const method = init?.method ?? req?.method;
    if (method !== undefined) out.method = String(method);
    const rawHeaders = init?.headers !== undefined ? init.headers : req ? req.headers : undefined;
    if (rawHeaders !== undefined && rawHeaders !== null) {
      if (rawHeaders instanceof Headers || Array.isArray(rawHeaders))
        out.headers = Object.fromEntries(new Headers(rawHeaders));
      else out.headers = { ...rawHeaders };
    }
    let body = null;
    if (init?.body !== undefined && init.body !== null) {
      const extracted = extractBody(init.body, lazyURLSearchParams);
      body = extracted.bytes;
      if (
        extracted.type !== null &&
        !Object.keys(out.headers ?? {}).some((k) => k.toLowerCase() === "content-type")
      ) {
        out.headers = { ...out.headers, "content-type": extracted.type };
      }
    } else if (req !== null && peek(req) !== null) body = new U8(take(req));
    if (body !== null) out.body = body;
    if (init?.timeoutMs !== undefined) out.timeoutMs = init.timeoutMs;
    if (init?.oauth !== undefined) out.oauth = init.oauth;
    const signal = init?.signal !== undefined ? init.signal : (req?.signal ?? null);
    if (signal !== null && !isSignal(signal)) throw new TypeError("signal must be an AbortSignal");
    return { url, init: out, signal };
  }

  return { Headers, Request, Response, toRequest, fromReply };
}
