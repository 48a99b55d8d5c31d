// Error codes of operator and agent tokens.
import { defineErrorCodes } from "@airlock/sdk";

export const AUTH_ERRORS = defineErrorCodes({
  AIRLOCK_AUTH_INVALID_ROLE: { status: 400, description: 'A token role is "operator" or "agent".' },
  AIRLOCK_AUTH_AGENT_REQUIRED: {
    status: 400,
    description: "An agent token must name an existing agent; an operator token must not name one.",
  },
  AIRLOCK_AUTH_INVALID_LABEL: { status: 400, description: "A token label is at most 200 characters." },
  AIRLOCK_AUTH_TOKEN_NOT_FOUND: {
    status: 404,
    description: "No token has this id (revoked already, or mistyped).",
  },
});

export type AuthErrorCode = keyof typeof AUTH_ERRORS;
