// The error catalogue of the OAuth broker and of model connections (AIRLOCK_OAUTH_*,
// AIRLOCK_MODEL_CONNECTION_INVALID); what the oauth and models capabilities raise to plugin code
// is in isolation/capabilities/errors.ts.
// Invariants: messages name providers, agents, plugins and connections, never a token, a code,
// a verifier, a client secret or a provider key.
import { AirlockError, defineErrorCodes } from "@airlock/sdk/errors";

export const BROKER_ERRORS = defineErrorCodes({
  AIRLOCK_OAUTH_NOT_CONNECTED: {
    status: 409,
    description:
      "The agent has not connected the provider (or its token was revoked); the tool's result carries the connect link.",
  },
  AIRLOCK_OAUTH_CLIENT_MISSING: {
    status: 409,
    description:
      "The operator has not set the provider's client id (`<provider>_oauth_client_id`) for this agent.",
  },
  AIRLOCK_OAUTH_SUBJECT_INVALID: {
    status: 400,
    description:
      "An operator's connect link or disconnect names an end user (`subject`) that is not 1–128 characters of A–Z a–z 0–9 . _ @ + : -.",
  },
  AIRLOCK_OAUTH_LINK_INVALID: {
    status: 400,
    description:
      "A connect link is unknown, altered, expired, or names a provider no active plugin declares.",
  },
  AIRLOCK_OAUTH_STATE_INVALID: {
    status: 400,
    description:
      "The authorization callback carries an unknown, expired or already used state (a replayed or forged callback).",
  },
  AIRLOCK_OAUTH_DENIED: {
    status: 400,
    description:
      "The provider answered the authorization with an error (the person declined, or the client is misconfigured).",
  },
  AIRLOCK_OAUTH_TOKEN_FAILED: {
    status: 502,
    description:
      "The provider's token endpoint refused the code or refresh token (wrong PKCE verifier, revoked grant) or could not be reached.",
  },
  AIRLOCK_OAUTH_PUBLIC_URL_MISSING: {
    status: 500,
    description:
      "The host has no public URL to build the OAuth callback from (set --public-url / AIRLOCK_PUBLIC_URL).",
  },
  AIRLOCK_MODEL_CONNECTION_INVALID: {
    status: 400,
    description:
      "A model connection or grant is malformed (name, base URL, model, budget), or names an unknown connection.",
  },
});

export type BrokerErrorCode = keyof typeof BROKER_ERRORS;

export function brokerError(
  code: BrokerErrorCode,
  message: string,
  details?: Record<string, unknown>,
  cause?: unknown,
): AirlockError {
  return new AirlockError(code, message, {
    status: BROKER_ERRORS[code].status,
    ...(details === undefined ? {} : { details }),
    ...(cause === undefined ? {} : { cause }),
  });
}
