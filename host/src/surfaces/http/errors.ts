// The error catalogue of the HTTP admin API (AIRLOCK_API_*), and the one function that turns
// any thrown value into the API's wire form `{error: {code, message, details?}}`.
// Invariants: a code is defined once here with its status and a line for docs/api.md; the wire
// form never carries a stack, a cause or a message of an error that has no AIRLOCK_* code
// (those become AIRLOCK_API_INTERNAL with a generic message, and the original goes to the log).
import { AirlockError, defineErrorCodes, hasCode } from "@airlock/sdk/errors";

export const API_ERRORS = defineErrorCodes({
  AIRLOCK_API_UNAUTHORIZED: {
    status: 401,
    description: "No bearer token, or a token the host does not know (revoked or mistyped).",
  },
  AIRLOCK_API_FORBIDDEN: {
    status: 403,
    description: "The token is valid but may not do this (an agent token outside its own agent's tools).",
  },
  AIRLOCK_API_NOT_FOUND: { status: 404, description: "No route matches this path." },
  AIRLOCK_API_METHOD_NOT_ALLOWED: {
    status: 405,
    description: "The path exists but not with this HTTP method; the Allow header lists the methods.",
  },
  AIRLOCK_API_UNKNOWN_AGENT: { status: 404, description: "No agent (instance) has this slug." },
  AIRLOCK_API_UNKNOWN_APPROVAL: { status: 404, description: "No pending approval has this id." },
  AIRLOCK_API_UNKNOWN_TOKEN: {
    status: 404,
    description: "No token has this id (revoked already, or mistyped).",
  },
  AIRLOCK_API_UNKNOWN_PLUGIN: {
    status: 404,
    description: "No installed plugin or plugin version has this namespace and version.",
  },
  AIRLOCK_API_BAD_JSON: { status: 400, description: "The request body is not well-formed JSON." },
  AIRLOCK_API_DUPLICATE_KEY: {
    status: 400,
    description:
      "The JSON body has the same key twice in one object (details.path, details.key); send each key once.",
  },
  AIRLOCK_API_KEY_FORBIDDEN: {
    status: 400,
    description:
      "The JSON body uses `__proto__`, `constructor` or `prototype` as a key (anywhere); they are refused, never dropped.",
  },
  AIRLOCK_API_NOT_UNICODE: {
    status: 400,
    description:
      "The JSON body holds a lone UTF-16 surrogate escape (an unpaired \\uD800–\\uDFFF): not Unicode text.",
  },
  AIRLOCK_API_INVALID_REQUEST: {
    status: 400,
    description:
      "The body, query or path parameters do not match the route's schema; details.issues says where.",
  },
  AIRLOCK_API_UNSUPPORTED_MEDIA_TYPE: {
    status: 415,
    description:
      "The Content-Type is not one the route accepts (application/json, or a tarball where noted).",
  },
  AIRLOCK_API_BODY_TOO_LARGE: {
    status: 413,
    description: "The request body is over the route's size limit (details.limit, in bytes).",
  },
  AIRLOCK_API_HOST_NOT_ALLOWED: {
    status: 403,
    description: "The Host or Origin header is not the server's own address (DNS-rebinding protection).",
  },
  AIRLOCK_API_TOO_MANY_STREAMS: {
    status: 429,
    description:
      "Too many open event streams for this principal (one agent, or the operators) or on this server (details.limit, details.scope); close one and retry.",
  },
  AIRLOCK_API_REPLICA_LOST: {
    status: 502,
    description:
      "Answered by the reverse proxy (docs/deploy.md), not the host: the replica serving the request stopped before answering; the call may or may not have run, look it up in the audit before retrying.",
  },
  AIRLOCK_API_INTERNAL: {
    status: 500,
    description: "An unexpected failure inside the host; the operator log has the details.",
  },
});

export type ApiErrorCode = keyof typeof API_ERRORS;

/** An AirlockError with the catalogue's status for `code`. */
export function apiError(
  code: ApiErrorCode,
  message: string,
  details?: Record<string, unknown>,
): AirlockError {
  const status = API_ERRORS[code].status;
  return new AirlockError(code, message, details === undefined ? { status } : { status, details });
}

export interface WireError {
  status: number;
  body: { error: { code: string; message: string; details?: Record<string, unknown> } };
  /** Seconds for Retry-After: an error whose details carry `retryAfterSeconds` (a store outage). */
  retryAfter?: number;
}

function validStatus(value: unknown): number | undefined {
  return typeof value === "number" && Number.isInteger(value) && value >= 400 && value <= 599
    ? value
    : undefined;
}

/**
 * The wire form of a thrown value. Only errors carrying an `AIRLOCK_*` code keep their message
 * (they are written to be shown); anything else is reported as AIRLOCK_API_INTERNAL and passed
 * to `log` so the operator can see it.
 */
export function toWireError(error: unknown, log?: (error: unknown) => void): WireError {
  if (hasCode(error) && error.code.startsWith("AIRLOCK_")) {
    const raw = error as { code: string; message: string; status?: unknown; details?: unknown };
    const status = validStatus(raw.status) ?? 400;
    if (status >= 500) log?.(error);
    const body: WireError["body"] = { error: { code: raw.code, message: String(raw.message) } };
    if (typeof raw.details === "object" && raw.details !== null && !Array.isArray(raw.details)) {
      body.error.details = raw.details as Record<string, unknown>;
    }
    const retryAfter = body.error.details?.retryAfterSeconds;
    return typeof retryAfter === "number" && Number.isInteger(retryAfter) && retryAfter > 0
      ? { status, body, retryAfter }
      : { status, body };
  }
  log?.(error);
  return {
    status: 500,
    body: { error: { code: "AIRLOCK_API_INTERNAL", message: "internal error; see the host log" } },
  };
}
