// The error catalogue of the bridge and the core capabilities (secrets, state, audit, progress,
// log): AIRLOCK_BRIDGE_*, AIRLOCK_STATE_*, AIRLOCK_AUDIT_*, AIRLOCK_NOTIFY_*.
// Invariants: each code is defined once here with its status and the line docs/sandbox.md shows;
// messages name keys, capabilities and limits, never a secret value, a token or artifact bytes.
import { defineErrorCodes, type ErrorFactory, errorFactory } from "@airlock/sdk/errors";

export const BRIDGE_ERRORS = defineErrorCodes({
  AIRLOCK_BRIDGE_TOKEN_INVALID: {
    status: 403,
    description: "The call token is unknown or revoked (the call it was issued for has ended).",
  },
  AIRLOCK_BRIDGE_CALL_LIMIT: {
    status: 429,
    description:
      "The tool call used up its capabilityCalls: the call ends with this code and its grant is revoked (audited once, with the limit).",
  },
  AIRLOCK_BRIDGE_BUSY: {
    status: 429,
    description:
      "Fair use: too many of the call's capability calls (or too many bytes of their arguments) are waiting for the host, in the call or in its worker; refused before it is sent or dispatched. Await some before making more.",
  },
  AIRLOCK_BRIDGE_DENIALS_SUPPRESSED: {
    status: 429,
    description:
      "Audit only: a call had more refused capability calls of one kind than the per-kind cap of denial rows; the call's summary row counts every kind in full (details.kinds, details.suppressed).",
  },
  AIRLOCK_SECRETS_UNDECLARED: {
    status: 403,
    description:
      "Audit only: ctx.secrets.get of a key the tool did not declare. The plugin reads `undefined`, as for an empty key.",
  },
  AIRLOCK_GRANT_NOT_DECLARED: {
    status: 403,
    description:
      "A tool that declares its own grants (`uses`) reached for something it did not declare (a knowledge or state level, an artifacts method, a fetch host or method, models, an OAuth provider), even if another tool of its plugin declares it; refused before the capability runs and audited as a denial (details.reason). Declare it in the tool's `uses`, within the plugin's own declaration.",
  },
  AIRLOCK_BRIDGE_UNKNOWN_CAPABILITY: {
    status: 404,
    description: "No such capability or method on ctx (or the host did not wire that capability).",
  },
  AIRLOCK_BRIDGE_ARGS_INVALID: {
    status: 400,
    description: "A ctx method got arguments of the wrong type or shape (the message names which).",
  },
  AIRLOCK_BRIDGE_FAILED: {
    status: 500,
    description: "A capability handler failed without a code of its own (a host-side bug or outage).",
  },
  AIRLOCK_BRIDGE_AUDIT_FAILED: {
    status: 500,
    description: "The bridge could not write the audit entry of a capability call; the call is refused.",
  },
  AIRLOCK_STATE_TOO_LARGE: {
    status: 413,
    description: "ctx.state.set would take the plugin's state in this conversation over the host's cap.",
  },
  AIRLOCK_STATE_INVALID: {
    status: 400,
    description:
      "ctx.state got a key that is not a 1–256 character string, or a value that is not JSON data.",
  },
  AIRLOCK_AUDIT_ENTRY_INVALID: {
    status: 400,
    description: "ctx.audit.log got an entry of the wrong shape, or one over the size caps.",
  },
});

export type BridgeErrorCode = keyof typeof BRIDGE_ERRORS;

export const bridgeError: ErrorFactory<typeof BRIDGE_ERRORS> = errorFactory(BRIDGE_ERRORS);
