// Reading and validating what a request carries: a size-capped body (declared Content-Length
// and bytes actually streamed are both checked), JSON parsing, and zod parsing of params,
// query and body into AIRLOCK_API_* errors that name the offending field.
// Invariants: never buffers more than `limit` + one chunk; never echoes the body back.

import { duplicateKey, forbiddenKey, hasLoneSurrogate } from "@airlock/sdk/strict-json";
import type { z } from "zod";
import { apiError } from "./errors.ts";

/** Reads the whole body, refusing more than `limit` bytes with AIRLOCK_API_BODY_TOO_LARGE. */
export async function readBodyCapped(request: Request, limit: number): Promise<Uint8Array> {
  const declared = request.headers.get("content-length");
  if (declared !== null && Number(declared) > limit) {
    throw apiError("AIRLOCK_API_BODY_TOO_LARGE", `the request body is over ${limit} bytes`, { limit });
  }
  if (request.body === null) return new Uint8Array(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel("body too large");
      throw apiError("AIRLOCK_API_BODY_TOO_LARGE", `the request body is over ${limit} bytes`, { limit });
    }
    chunks.push(value);
  }
  const out = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return out;
}

/** The media type of a request without parameters, lowercased; "" when absent. */
export function mediaType(request: Request): string {
  const header = request.headers.get("content-type") ?? "";
  return (header.split(";")[0] ?? "").trim().toLowerCase();
}

/**
 * Parses JSON bytes; malformed input is AIRLOCK_API_BAD_JSON. The parser's own message quotes
 * the body (which may hold a secret), so only the position it names is passed on. JSON that
 * parses but has a key twice in one object (AIRLOCK_API_DUPLICATE_KEY: the last would win) or a
 * lone UTF-16 surrogate (AIRLOCK_API_NOT_UNICODE) is refused too, and so is a `__proto__`,
 * `constructor` or `prototype` key (AIRLOCK_API_KEY_FORBIDDEN); only keys and paths are named.
 */
export function parseJsonBody(bytes: Uint8Array): unknown {
  const text = new TextDecoder("utf-8", { fatal: false }).decode(bytes);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const position = /position (\d+)/.exec(error instanceof Error ? error.message : "")?.[1];
    throw apiError(
      "AIRLOCK_API_BAD_JSON",
      "the request body is not well-formed JSON",
      position === undefined ? undefined : { position: Number(position) },
    );
  }
  const twice = duplicateKey(text);
  if (twice !== null) {
    throw apiError(
      "AIRLOCK_API_DUPLICATE_KEY",
      `the request body has the key ${JSON.stringify(twice.key.slice(0, 100))} twice in ${twice.path}`,
      { path: twice.path, key: twice.key.slice(0, 100) },
    );
  }
  const proto = forbiddenKey(text);
  if (proto !== null) {
    // zod and object spreads drop or reinterpret these keys: refuse them rather than lose them
    throw apiError(
      "AIRLOCK_API_KEY_FORBIDDEN",
      `the request body uses the key "${proto}"; __proto__, constructor and prototype are refused as keys`,
      { key: proto },
    );
  }
  if (hasLoneSurrogate(text)) {
    throw apiError(
      "AIRLOCK_API_NOT_UNICODE",
      "the request body holds a lone UTF-16 surrogate (\\uD800–\\uDFFF unpaired)",
    );
  }
  return value;
}

interface Issue {
  path: string;
  message: string;
}

function describeIssues(error: z.ZodError): Issue[] {
  return error.issues.slice(0, 20).map((issue) => ({
    path: issue.path.map(String).join(".") || "(root)",
    message: issue.message,
  }));
}

/** Parses `value` with `schema`; a mismatch is AIRLOCK_API_INVALID_REQUEST listing the issues. */
export function validate<T extends z.ZodType>(
  schema: T,
  value: unknown,
  where: "params" | "query" | "body",
): z.output<T> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issues = describeIssues(parsed.error);
  const first = issues[0];
  const summary = first === undefined ? "invalid" : `${first.path}: ${first.message}`;
  throw apiError("AIRLOCK_API_INVALID_REQUEST", `invalid ${where}: ${summary}`, { where, issues });
}
