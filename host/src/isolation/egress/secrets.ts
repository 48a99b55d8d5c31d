// Secret injection for ctx.fetch: checks that every `{$secretRef: key}` header may go to the
// destination, reads the values host-side, and scrubs those values out of anything handed back.
// Invariants: a secret is injected only when the tool declares it AND an egress rule admitting
// the destination binds it for the request's method and path (secretMethods, secretPaths); the
// check runs before any connection and again on every redirect hop; values are never put in an
// error, a detail or an audit entry; a response whose headers or body echo an injected value of
// at least MIN_REDACT_LENGTH characters — raw, URL-encoded, JSON-escaped or base64 — is refused
// (AIRLOCK_FETCH_SECRET_ECHOED) before anything of it reaches the isolate; the URL handed back
// and error texts have such values replaced by REDACTED.

import { type Destination, secretAdmitted } from "./destination.ts";
import { fetchError } from "./errors.ts";
import { isValidHeaderValue, type SecretHeader } from "./request-init.ts";
import type { SecretSource } from "./types.ts";

export const REDACTED = "[airlock:redacted]";
/** Shorter values are not scrubbed from responses: they would match ordinary text. */
export const MIN_REDACT_LENGTH = 4;

/** Throws AIRLOCK_FETCH_SECRET_NOT_BOUND unless every secret header may go to `dest` with `method`. */
export function assertSecretsBound(
  headers: readonly SecretHeader[],
  dest: Destination,
  declared: ReadonlySet<string>,
  method: string,
): void {
  for (const h of headers) {
    const undeclared = !declared.has(h.key);
    const host = !undeclared && dest.boundSecrets.has(h.key);
    if (undeclared || !host || !secretAdmitted(dest, h.key, method)) {
      const reason = undeclared ? "undeclared" : host ? "method_or_path" : "unbound";
      throw fetchError(
        "AIRLOCK_FETCH_SECRET_NOT_BOUND",
        reason === "undeclared"
          ? `secret "${h.key}" (header "${h.name}") is not declared by this tool`
          : reason === "unbound"
            ? `secret "${h.key}" (header "${h.name}") is not bound to ${dest.hostname}; its egress rule lists where it may go`
            : `secret "${h.key}" (header "${h.name}") is bound to ${dest.hostname} only for other methods or paths (not ${method} ${dest.url.pathname})`,
        { secret: h.key, header: h.name, host: dest.hostname, reason },
      );
    }
  }
}

/** Reads each referenced secret once. Throws AIRLOCK_FETCH_SECRET_NOT_SET for an empty one. */
export async function loadSecrets(
  headers: readonly SecretHeader[],
  source: SecretSource,
  agent: string,
): Promise<Map<string, string>> {
  const values = new Map<string, string>();
  for (const h of headers) {
    if (values.has(h.key)) continue;
    const value = await source.get(agent, h.key);
    if (typeof value !== "string" || value === "") {
      throw fetchError("AIRLOCK_FETCH_SECRET_NOT_SET", `secret "${h.key}" is not set for this agent`, {
        secret: h.key,
      });
    }
    if (!isValidHeaderValue(h.prefix + value)) {
      throw fetchError(
        "AIRLOCK_FETCH_BAD_REQUEST",
        `secret "${h.key}" cannot be sent in a header (it contains CR, LF or NUL, or is too long)`,
        { secret: h.key, header: h.name },
      );
    }
    values.set(h.key, value);
  }
  return values;
}

/** The literal header values to send: `prefix + value` for every secret header. */
export function injectedHeaders(headers: readonly SecretHeader[], values: ReadonlyMap<string, string>) {
  return headers.map((h) => [h.name, h.prefix + (values.get(h.key) as string)] as const);
}

export interface Redactor {
  text(s: string): string;
  bytes(b: Uint8Array): Uint8Array;
  /** Whether the text or bytes hold an injected value in any of its spellings. */
  found(x: string | Uint8Array): boolean;
}

/** The forms a server most often reflects a value in: raw, URL-encoded, JSON-escaped, base64(url). */
function spellings(value: string): string[] {
  const bytes = Buffer.from(value, "utf8");
  return [
    value,
    encodeURIComponent(value),
    JSON.stringify(value).slice(1, -1),
    bytes.toString("base64"),
    bytes.toString("base64url"),
  ];
}

/** Scrubs the given secret values (in the forms above) from strings and bytes; identity when none. */
export function redactor(values: Iterable<string>): Redactor {
  const long = [...values].filter((v) => v.length >= MIN_REDACT_LENGTH);
  const secrets = [...new Set(long.flatMap(spellings))];
  secrets.sort((a, b) => b.length - a.length);
  if (secrets.length === 0) return { text: (s) => s, bytes: (b) => b, found: () => false };
  const needles = secrets.map((s) => Buffer.from(s, "utf8"));
  const marker = Buffer.from(REDACTED, "utf8");
  return {
    found: (x) => {
      const buf =
        typeof x === "string" ? Buffer.from(x, "utf8") : Buffer.from(x.buffer, x.byteOffset, x.byteLength);
      return needles.some((n) => buf.indexOf(n) >= 0);
    },
    text: (s) => secrets.reduce((acc, v) => acc.split(v).join(REDACTED), s),
    bytes: (b) => {
      let buf = Buffer.from(b.buffer, b.byteOffset, b.byteLength);
      let changed = false;
      for (const needle of needles) {
        if (buf.indexOf(needle) < 0) continue;
        const parts: Buffer[] = [];
        let from = 0;
        for (let at = buf.indexOf(needle); at >= 0; at = buf.indexOf(needle, from)) {
          parts.push(buf.subarray(from, at), marker);
          from = at + needle.length;
        }
        parts.push(buf.subarray(from));
        buf = Buffer.concat(parts);
        changed = true;
      }
      // A copy owns its memory exactly (Buffer.concat may hand out a slice of a shared pool).
      return changed ? new Uint8Array(buf) : b;
    },
  };
}
