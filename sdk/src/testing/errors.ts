// Error codes of `@airlock/sdk/testing` (the test harness).
import { defineErrorCodes } from "../errors.ts";

export const TESTING_ERRORS = defineErrorCodes({
  AIRLOCK_SDK_TESTING_HOST_MISSING: {
    status: 500,
    description: "The harness could not load its peer dependency @airlock/host; install it next to the SDK.",
  },
  AIRLOCK_SDK_TESTING_UNKNOWN_TOOL: {
    status: 400,
    description: "testTool named a tool the built plugin does not define; use one of the names listed.",
  },
  AIRLOCK_SDK_TESTING_BUILD_FAILED: {
    status: 400,
    description: "The plugin directory could not be built or packed; the cause names what is wrong.",
  },
});
