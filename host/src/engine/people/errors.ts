// Error codes of people in the loop: approval policy, ctx.elicit, the host's approval and
// secret pages, and the 2026-07-28 multi-round-trip state.
import { defineErrorCodes } from "@airlock/sdk";

export const PEOPLE_ERRORS = defineErrorCodes({
  AIRLOCK_POLICY_INVALID: {
    status: 400,
    description:
      "An approval policy or askable-secret list is malformed: modes are operator, client or auto; tools are ns:tool ids; keys are secret keys.",
  },
  AIRLOCK_APPROVAL_DISMISSED: {
    status: 403,
    description:
      "The person at the client dismissed the approval request (elicitation cancel); the call did not run.",
  },
  AIRLOCK_ELICIT_INVALID: {
    status: 400,
    description:
      "ctx.elicit was given something other than { message, schema } with a flat form schema (string, number, integer, boolean, enum and multi-select fields).",
  },
  AIRLOCK_ELICIT_CONTENT_INVALID: {
    status: 422,
    description: "The client accepted a form whose content does not match the schema ctx.elicit asked with.",
  },
  AIRLOCK_INPUT_REQUIRED: {
    status: 409,
    description:
      "Internal to a 2026-07-28 round: the call needs an answer from the client first; it ends the round with an input_required result, never reaches a model.",
  },
  AIRLOCK_MRTR_STATE_INVALID: {
    status: 400,
    description:
      "A retried 2026-07-28 request carried a requestState this host did not seal, that expired, or that belongs to another call (answered as JSON-RPC -32602).",
  },
  AIRLOCK_PAGE_NOT_FOUND: {
    status: 404,
    description: "The approval or secret page names nothing pending: decided, expired, or never issued.",
  },
  AIRLOCK_PAGE_FORM_INVALID: {
    status: 403,
    description:
      "The page's form token (its CSRF token, sealed by the host for that approval or ticket) is missing, expired or another page's, or the post is not the page's own form; reload the page.",
  },
  AIRLOCK_PAGE_FORBIDDEN: {
    status: 403,
    description:
      "The approval page shows a call's input and takes a decision only from an operator: the token presented (or the one that signed in on the page) is not a live operator token of this host.",
  },
  AIRLOCK_PAGE_SECRET_NOT_ALLOWED: {
    status: 403,
    description:
      "The operator does not (or no longer) allow this secret to be entered on the host's page for this agent.",
  },
});
