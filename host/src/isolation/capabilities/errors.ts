// The error catalogue of the `oauth` and `models` capabilities (ctx.oauth, ctx.models): what
// plugin code gets when it asks for a provider or a model it may not use, or when the provider
// fails. The broker's own codes (connect links, callbacks, tokens) are in engine/oauth/errors.ts.
// Invariants: each code is defined once here; messages name providers, agents, plugins and
// connections, never a token, a code, a client secret or a provider key.
import { AirlockError, defineErrorCodes } from "@airlock/sdk/errors";

export const CAPABILITY_ERRORS = defineErrorCodes({
  AIRLOCK_OAUTH_PROVIDER_UNDECLARED: {
    status: 403,
    description: "The plugin asked for an OAuth provider its manifest does not declare.",
  },
  AIRLOCK_OAUTH_RAW_TOKEN_REFUSED: {
    status: 403,
    description:
      "ctx.oauth.token was called for a provider that declares no rawToken reason, or the operator has not allowed it for this agent.",
  },
  AIRLOCK_MODEL_NOT_DECLARED: {
    status: 403,
    description: "ctx.models was used by a plugin whose manifest declares no `models` reason.",
  },
  AIRLOCK_MODEL_NOT_GRANTED: {
    status: 403,
    description: "The operator has granted this agent's plugin no model connection.",
  },
  AIRLOCK_MODEL_BUDGET_EXHAUSTED: {
    status: 429,
    description: "The grant's call or token budget for the period is used up; no provider call was made.",
  },
  AIRLOCK_MODEL_REQUEST_INVALID: {
    status: 400,
    description:
      "ctx.models.complete was given something other than {messages: [{role, content}], maxTokens?, temperature?}.",
  },
  AIRLOCK_MODEL_PROVIDER_FAILED: {
    status: 502,
    description:
      "The model provider answered with an error or an unreadable response, or could not be reached.",
  },
});

export type CapabilityErrorCode = keyof typeof CAPABILITY_ERRORS;

export function capabilityError(
  code: CapabilityErrorCode,
  message: string,
  details?: Record<string, unknown>,
): AirlockError {
  return new AirlockError(code, message, {
    status: CAPABILITY_ERRORS[code].status,
    ...(details === undefined ? {} : { details }),
  });
}
