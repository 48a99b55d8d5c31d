// Error catalogue of plugin UIs (MCP Apps) as the host serves them (host/src/engine/apps/).
import { defineErrorCodes, type ErrorFactory, errorFactory } from "@airlock/sdk/errors";

export const UI_ERRORS = defineErrorCodes({
  AIRLOCK_UI_UNKNOWN: {
    status: 404,
    description:
      "No enabled tool of the agent names that UI (ui://<namespace>/<name>), or no active plugin ships it (the two are not told apart to the agent).",
  },
  AIRLOCK_UI_INTEGRITY: {
    status: 500,
    description:
      "A UI file on this host no longer matches the sha512 its signed manifest lists; it is not served (reinstall the plugin).",
  },
});

export const uiError: ErrorFactory<typeof UI_ERRORS> = errorFactory(UI_ERRORS);
