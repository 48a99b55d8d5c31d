// The error catalogue of the host's own OAuth 2.1 authorization server (AIRLOCK_AUTHZ_*):
// registration, the authorization request and the consent page, the token and revocation
// endpoints, and access tokens presented at an agent's MCP endpoint.
// Invariants: a code is defined once here with its status, the OAuth `error` it is sent as
// (RFC 6749 §4.1.2.1/§5.2, RFC 7591 §3.2.2, RFC 8707, RFC 6750 §3.1) and the line docs/errors.md
// shows; every refusal these codes name is audited.
import { AirlockError, defineErrorCodes } from "@airlock/sdk/errors";

export const AUTHZ_ERRORS = defineErrorCodes({
  AIRLOCK_AUTHZ_INVALID_CLIENT_METADATA: {
    status: 400,
    description:
      "A client registration was refused: redirect_uris must be 1–10 https URLs or loopback http URLs (127.0.0.1, [::1], localhost) without a fragment; only public clients (token_endpoint_auth_method none) with the authorization_code and refresh_token grants are registered.",
  },
  AIRLOCK_AUTHZ_REGISTRATION_RATE_LIMITED: {
    status: 429,
    description:
      "Too many client registrations from one source address: 10 at once, then one a minute come back; wait and register again.",
  },
  AIRLOCK_AUTHZ_TOO_MANY_CLIENTS: {
    status: 503,
    description:
      "The host has as many registered clients as AIRLOCK_AUTHZ_MAX_CLIENTS allows (default 1000); the operator raises it to take more.",
  },
  AIRLOCK_AUTHZ_UNKNOWN_CLIENT: {
    status: 400,
    description: "The client_id is not one this host registered; register the client again.",
  },
  AIRLOCK_AUTHZ_REDIRECT_URI_MISMATCH: {
    status: 400,
    description:
      "The redirect_uri is not exactly one the client registered (no prefix or pattern matching); the browser is not sent back to it.",
  },
  AIRLOCK_AUTHZ_INVALID_REQUEST: {
    status: 400,
    description:
      "An authorization or token request lacks a parameter or has a wrong one: response_type must be code, code_challenge_method S256 with a 43–128 character code_challenge.",
  },
  AIRLOCK_AUTHZ_INVALID_RESOURCE: {
    status: 400,
    description:
      "The resource parameter (RFC 8707) is missing or is not the MCP URL of an agent of this host (<origin>/mcp/<agent>).",
  },
  AIRLOCK_AUTHZ_ACCESS_DENIED: {
    status: 403,
    description: "The operator denied the client's request on the consent page.",
  },
  AIRLOCK_AUTHZ_CONSENT_FORM_INVALID: {
    status: 403,
    description:
      "A consent decision did not come from this host's consent page in the signed-in operator's session (Origin, CSRF token or form expired); open the authorization link again.",
  },
  AIRLOCK_AUTHZ_INVALID_GRANT: {
    status: 400,
    description:
      "The authorization code or refresh token is unknown, expired, revoked, or was issued to another client or redirect URI.",
  },
  AIRLOCK_AUTHZ_CODE_REUSED: {
    status: 400,
    description:
      "An authorization code was presented a second time; the tokens issued for it are revoked (RFC 6749 §4.1.2).",
  },
  AIRLOCK_AUTHZ_PKCE_MISMATCH: {
    status: 400,
    description:
      "The code_verifier does not match the code_challenge of the authorization request (PKCE S256).",
  },
  AIRLOCK_AUTHZ_REFRESH_REUSED: {
    status: 400,
    description:
      "A refresh token that was already exchanged was presented again: the whole grant (every token of that consent) is revoked; authorize again.",
  },
  AIRLOCK_AUTHZ_UNSUPPORTED_GRANT_TYPE: {
    status: 400,
    description: "The token endpoint takes grant_type authorization_code or refresh_token only.",
  },
  AIRLOCK_AUTHZ_TOKEN_INVALID: {
    status: 401,
    description:
      "The OAuth access token is unknown, expired, or its grant was revoked; refresh it or authorize again.",
  },
  AIRLOCK_AUTHZ_WRONG_AUDIENCE: {
    status: 401,
    description:
      "The OAuth access token was issued for another agent's MCP URL (its audience); a token is accepted only at the URL it was granted for.",
  },
  AIRLOCK_AUTHZ_UNKNOWN_GRANT: {
    status: 404,
    description: "No OAuth grant of this agent has that id.",
  },
  AIRLOCK_AUTHZ_CONFIG_INVALID: {
    status: 500,
    description:
      "AIRLOCK_AUTHZ_ACCESS_TOKEN_TTL must be whole seconds from 60 to 86400; AIRLOCK_AUTHZ_MAX_CLIENTS a whole number from 1 to 1000000.",
  },
});

export type AuthzErrorCode = keyof typeof AUTHZ_ERRORS;

/** The OAuth `error` value each code is sent as. */
export const OAUTH_ERROR_OF: Readonly<Record<AuthzErrorCode, string>> = {
  AIRLOCK_AUTHZ_INVALID_CLIENT_METADATA: "invalid_client_metadata",
  AIRLOCK_AUTHZ_REGISTRATION_RATE_LIMITED: "temporarily_unavailable",
  AIRLOCK_AUTHZ_TOO_MANY_CLIENTS: "temporarily_unavailable",
  AIRLOCK_AUTHZ_UNKNOWN_CLIENT: "invalid_client",
  AIRLOCK_AUTHZ_REDIRECT_URI_MISMATCH: "invalid_request",
  AIRLOCK_AUTHZ_INVALID_REQUEST: "invalid_request",
  AIRLOCK_AUTHZ_INVALID_RESOURCE: "invalid_target",
  AIRLOCK_AUTHZ_ACCESS_DENIED: "access_denied",
  AIRLOCK_AUTHZ_CONSENT_FORM_INVALID: "invalid_request",
  AIRLOCK_AUTHZ_INVALID_GRANT: "invalid_grant",
  AIRLOCK_AUTHZ_CODE_REUSED: "invalid_grant",
  AIRLOCK_AUTHZ_PKCE_MISMATCH: "invalid_grant",
  AIRLOCK_AUTHZ_REFRESH_REUSED: "invalid_grant",
  AIRLOCK_AUTHZ_UNSUPPORTED_GRANT_TYPE: "unsupported_grant_type",
  AIRLOCK_AUTHZ_TOKEN_INVALID: "invalid_token",
  AIRLOCK_AUTHZ_WRONG_AUDIENCE: "invalid_token",
  AIRLOCK_AUTHZ_UNKNOWN_GRANT: "invalid_request",
  AIRLOCK_AUTHZ_CONFIG_INVALID: "server_error",
};

export function authzError(code: AuthzErrorCode, message: string): AirlockError {
  return new AirlockError(code, message, { status: AUTHZ_ERRORS[code].status });
}

/** An OAuth error body: `error` per the RFCs, the stable code in `airlock_code` and the description. */
export function oauthErrorBody(code: AuthzErrorCode, message: string): Record<string, string> {
  return { error: OAUTH_ERROR_OF[code], error_description: `${message} (${code})`, airlock_code: code };
}
