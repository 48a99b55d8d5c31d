// Error catalogue of plugin skills as the host serves them (host/src/engine/skills/).
import { defineErrorCodes, type ErrorFactory, errorFactory } from "@airlock/sdk/errors";

export const SKILL_ERRORS = defineErrorCodes({
  AIRLOCK_SKILL_UNKNOWN: {
    status: 404,
    description:
      "No active plugin ships that skill, or it is not enabled for the agent (the two are not told apart to the agent).",
  },
  AIRLOCK_SKILL_INPUT_INVALID: {
    status: 400,
    description:
      "A call of the airlock:skills or airlock:skill harness tool has input it does not take (airlock:skill takes {id}).",
  },
  AIRLOCK_SKILL_INVALID_CHANGE: {
    status: 400,
    description:
      "A skill enablement change names no skill of an active plugin, or does not map to true or false.",
  },
});

export const skillError: ErrorFactory<typeof SKILL_ERRORS> = errorFactory(SKILL_ERRORS);
