// Validation of the untrusted `init` a plugin passes to ctx.fetch: method, headers (literal
// values and `{$secretRef: key}` placeholders), body and timeout.
// Invariants: forbidden headers are REFUSED, never silently dropped (the author learns at once);
// header names are RFC 9110 tokens, values carry no CR, LF or NUL; GET/HEAD carry no body; the
// body is bytes within maxRequestBytes. Nothing here reads a secret value.
import { HTTP_METHODS, OAUTH_PROVIDER_PATTERN, SECRET_KEY_PATTERN } from "@airlock/sdk";
import { fetchError } from "./errors.ts";

/** The methods a plugin may fetch with: the ones a tool may declare in `uses.fetch`. */
export const ALLOWED_METHODS: ReadonlySet<string> = new Set(HTTP_METHODS);

/**
 * Headers the host owns. Host/Content-Length/Transfer-Encoding/Connection and friends shape
 * the connection itself (request smuggling, virtual-host confusion); Accept-Encoding is pinned to
 * `identity` because the body is handed over as received; Proxy-* never leaves the host.
 */
export const FORBIDDEN_HEADERS: ReadonlySet<string> = new Set([
  "host",
  "connection",
  "keep-alive",
  "transfer-encoding",
  "te",
  "trailer",
  "upgrade",
  "content-length",
  "expect",
  "http2-settings",
  "accept-encoding",
]);
const FORBIDDEN_PREFIXES = ["proxy-"];

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const MAX_HEADERS = 64;
const MAX_HEADER_VALUE = 8192;

/** A header whose value the host fills in from a secret: `prefix + value`. */
export interface SecretHeader {
  readonly name: string;
  readonly key: string;
  readonly prefix: string;
}

export interface PreparedRequest {
  method: string;
  /** Literal headers, lowercase names. */
  headers: Map<string, string>;
  secretHeaders: SecretHeader[];
  body: Uint8Array | null;
  timeoutMs: number | undefined;
  /** The declared OAuth provider whose bearer the host adds (init.oauth), or undefined. */
  oauth: string | undefined;
}

function bad(message: string, details?: Record<string, unknown>): never {
  throw fetchError("AIRLOCK_FETCH_BAD_REQUEST", message, details);
}

export function isValidHeaderValue(value: string): boolean {
  return value.length <= MAX_HEADER_VALUE && !/[\r\n\0]/.test(value);
}

function parseSecretRef(name: string, value: object): SecretHeader {
  const v = value as Record<string, unknown>;
  const keys = Object.keys(v);
  const key = v.$secretRef;
  const prefix = v.prefix ?? "";
  if (
    typeof key !== "string" ||
    !SECRET_KEY_PATTERN.test(key) ||
    typeof prefix !== "string" ||
    !isValidHeaderValue(prefix) ||
    keys.some((k) => k !== "$secretRef" && k !== "prefix")
  ) {
    bad(`header "${name}" must be a string or ctx.secrets.ref(key) ({$secretRef, prefix?})`, {
      header: name,
    });
  }
  return { name, key, prefix };
}

function parseHeaders(raw: unknown, prepared: PreparedRequest): void {
  if (raw === undefined || raw === null) return;
  if (typeof raw !== "object" || Array.isArray(raw)) bad("init.headers must be an object of name → value");
  const entries = Object.entries(raw as Record<string, unknown>);
  if (entries.length > MAX_HEADERS) bad(`at most ${MAX_HEADERS} headers are accepted`);
  const seen = new Set<string>();
  for (const [rawName, value] of entries) {
    const name = rawName.toLowerCase();
    if (!TOKEN.test(name)) bad(`header name ${JSON.stringify(rawName.slice(0, 64))} is not a valid token`);
    if (seen.has(name)) bad(`header "${name}" is given twice`, { header: name });
    seen.add(name);
    if (FORBIDDEN_HEADERS.has(name) || FORBIDDEN_PREFIXES.some((p) => name.startsWith(p))) {
      bad(`header "${name}" is set by the host and may not be sent by a plugin`, { header: name });
    }
    if (typeof value === "string") {
      if (!isValidHeaderValue(value)) {
        bad(`header "${name}" has a value with CR, LF or NUL, or over ${MAX_HEADER_VALUE} characters`, {
          header: name,
        });
      }
      prepared.headers.set(name, value);
    } else if (typeof value === "object" && value !== null) {
      prepared.secretHeaders.push(parseSecretRef(name, value));
    } else {
      bad(`header "${name}" must be a string or ctx.secrets.ref(key)`, { header: name });
    }
  }
}

function parseBody(raw: unknown, maxRequestBytes: number): Uint8Array | null {
  if (raw === undefined || raw === null) return null;
  let bytes: Uint8Array;
  if (typeof raw === "string") bytes = new TextEncoder().encode(raw);
  else if (raw instanceof Uint8Array) bytes = raw;
  else if (raw instanceof ArrayBuffer) bytes = new Uint8Array(raw);
  else if (ArrayBuffer.isView(raw)) bytes = new Uint8Array(raw.buffer, raw.byteOffset, raw.byteLength);
  else bad("init.body must be a string or a Uint8Array");
  if (bytes.byteLength > maxRequestBytes) {
    throw fetchError(
      "AIRLOCK_FETCH_REQUEST_TOO_LARGE",
      `the request body is ${bytes.byteLength} bytes; the limit is ${maxRequestBytes}`,
      { limit: maxRequestBytes, bytes: bytes.byteLength },
    );
  }
  return bytes;
}

/** Validates `init`; throws AIRLOCK_FETCH_BAD_REQUEST or _REQUEST_TOO_LARGE. */
export function prepareRequest(raw: unknown, maxRequestBytes: number): PreparedRequest {
  if (raw !== undefined && raw !== null && (typeof raw !== "object" || Array.isArray(raw))) {
    bad("init must be an object");
  }
  const init = (raw ?? {}) as Record<string, unknown>;
  const method = init.method === undefined ? "GET" : init.method;
  if (typeof method !== "string" || !ALLOWED_METHODS.has(method.toUpperCase())) {
    bad(`method must be one of ${[...ALLOWED_METHODS].join(", ")}`);
  }
  const timeoutMs = init.timeoutMs;
  if (timeoutMs !== undefined && (typeof timeoutMs !== "number" || !(timeoutMs > 0))) {
    bad("init.timeoutMs must be a positive number of milliseconds");
  }
  const oauth = init.oauth;
  if (oauth !== undefined && (typeof oauth !== "string" || !OAUTH_PROVIDER_PATTERN.test(oauth))) {
    bad("init.oauth must be the name of an OAuth provider the plugin declares");
  }
  const prepared: PreparedRequest = {
    oauth,
    method: method.toUpperCase(),
    headers: new Map(),
    secretHeaders: [],
    body: parseBody(init.body, maxRequestBytes),
    timeoutMs,
  };
  if (prepared.body !== null && (prepared.method === "GET" || prepared.method === "HEAD")) {
    bad(`a ${prepared.method} request cannot have a body`);
  }
  parseHeaders(init.headers, prepared);
  if (
    oauth !== undefined &&
    (prepared.headers.has("authorization") || prepared.secretHeaders.some((h) => h.name === "authorization"))
  ) {
    bad("init.oauth sets the authorization header itself; do not send one too", { header: "authorization" });
  }
  return prepared;
}
