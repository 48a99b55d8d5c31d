// The error catalogue of ctx.fetch (AIRLOCK_FETCH_*), and the one constructor that builds them.
// Invariants: each code is defined once here with its status and the line docs/egress.md shows;
// messages and details name hosts, ports, header names and secret keys, never a header value,
// a body or a secret value.
import { AirlockError, defineErrorCodes } from "@airlock/sdk/errors";

export const FETCH_ERRORS = defineErrorCodes({
  AIRLOCK_FETCH_BAD_REQUEST: {
    status: 400,
    description:
      "The URL or init is malformed (unparsable URL, credentials in the URL, bad method, forbidden or invalid header, bad body).",
  },
  AIRLOCK_FETCH_REQUEST_TOO_LARGE: {
    status: 413,
    description: "The request body is over the host's cap (details.limit, in bytes).",
  },
  AIRLOCK_FETCH_SCHEME_NOT_ALLOWED: {
    status: 403,
    description: "The URL's scheme is not http/https, or not one the matching egress rule declares.",
  },
  AIRLOCK_FETCH_HOST_NOT_ALLOWED: {
    status: 403,
    description: "No egress rule of the plugin declares this host, or the operator does not allow it.",
  },
  AIRLOCK_FETCH_PORT_NOT_ALLOWED: {
    status: 403,
    description: "The host is declared but not on this port (default ports: 443 for https, 80 for http).",
  },
  AIRLOCK_FETCH_ADDRESS_REFUSED: {
    status: 403,
    description:
      "The host is, or resolves to, a loopback, private, link-local, metadata, multicast or otherwise special address (details.reason).",
  },
  AIRLOCK_FETCH_SECRET_NOT_BOUND: {
    status: 403,
    description:
      "A header asks for a secret the tool does not declare, or that no egress rule binds to the destination host.",
  },
  AIRLOCK_FETCH_SECRET_NOT_SET: {
    status: 409,
    description:
      "A header asks for a declared, bound secret that the operator has not filled in for this agent.",
  },
  AIRLOCK_FETCH_SECRET_ECHOED: {
    status: 502,
    description:
      "The response echoes a secret the host injected into the request (raw, URL-encoded, JSON-escaped or base64, in a header or the body); it is refused before it reaches the plugin.",
  },
  AIRLOCK_FETCH_OAUTH_NOT_DECLARED: {
    status: 403,
    description: "init.oauth names a provider the plugin's manifest does not declare.",
  },
  AIRLOCK_FETCH_OAUTH_HOST_NOT_ALLOWED: {
    status: 403,
    description:
      "init.oauth was given for a host that is not among the provider's apiHosts (the bearer goes only there, redirects included).",
  },
  AIRLOCK_FETCH_OAUTH_NOT_CONNECTED: {
    status: 409,
    description:
      "init.oauth names a declared provider the agent has not connected (or whose token was revoked); call ctx.oauth.requireToken first.",
  },
  AIRLOCK_FETCH_REDIRECT_REFUSED: {
    status: 403,
    description:
      "A redirect points somewhere this request may not go (details.reason holds the code the target would get).",
  },
  AIRLOCK_FETCH_TOO_MANY_REDIRECTS: {
    status: 502,
    description: "The server redirected more times than the host allows (details.limit).",
  },
  AIRLOCK_FETCH_TIMEOUT: {
    status: 504,
    description:
      "Connecting, or the whole exchange including redirects and the body, took longer than allowed.",
  },
  AIRLOCK_FETCH_RESPONSE_TOO_LARGE: {
    status: 502,
    description:
      "The response body exceeded the host's cap while streaming (details.limit, in bytes); it was aborted.",
  },
  AIRLOCK_FETCH_NETWORK: {
    status: 502,
    description: "The name did not resolve, or the connection failed or was reset (details.reason).",
  },
  AIRLOCK_FETCH_ABORTED: {
    status: 503,
    description:
      "The tool call ended (completed, cancelled or past its deadline) while the request was in flight.",
  },
  AIRLOCK_FETCH_POLICY_INVALID: {
    status: 500,
    description:
      "The operator's egress policy or limits are malformed (an allowPrivate entry that is no CIDR or host).",
  },
});

export type FetchErrorCode = keyof typeof FETCH_ERRORS;

/** Builds an AirlockError with the catalogue's status. Never pass a secret or header value. */
export function fetchError(
  code: FetchErrorCode,
  message: string,
  details?: Record<string, unknown>,
  cause?: unknown,
): AirlockError {
  return new AirlockError(code, message, {
    status: FETCH_ERRORS[code].status,
    ...(details === undefined ? {} : { details }),
    ...(cause === undefined ? {} : { cause }),
  });
}

/** Codes that mean "policy said no" (audited with allowed=false), as opposed to a failed exchange. */
export const REFUSAL_CODES: ReadonlySet<string> = new Set<FetchErrorCode>([
  "AIRLOCK_FETCH_SCHEME_NOT_ALLOWED",
  "AIRLOCK_FETCH_HOST_NOT_ALLOWED",
  "AIRLOCK_FETCH_PORT_NOT_ALLOWED",
  "AIRLOCK_FETCH_ADDRESS_REFUSED",
  "AIRLOCK_FETCH_SECRET_NOT_BOUND",
  "AIRLOCK_FETCH_SECRET_ECHOED",
  "AIRLOCK_FETCH_OAUTH_NOT_DECLARED",
  "AIRLOCK_FETCH_OAUTH_HOST_NOT_ALLOWED",
  "AIRLOCK_FETCH_REDIRECT_REFUSED",
]);
