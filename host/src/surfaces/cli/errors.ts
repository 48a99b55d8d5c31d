// The error catalogue of the `airlock` CLI (AIRLOCK_CLI_*). `status` is the HTTP-style status
// the catalogue convention asks for; the process exit code is 2 for usage errors
// (AIRLOCK_CLI_USAGE, AIRLOCK_CLI_UNKNOWN_COMMAND), 1 for everything else (@airlock/sdk/cli-kit).
import { AirlockError, defineErrorCodes } from "@airlock/sdk/errors";

export const CLI_ERRORS = defineErrorCodes({
  AIRLOCK_CLI_USAGE: {
    status: 400,
    description:
      "Unknown option, missing argument or malformed value; the message says which, --help shows usage.",
  },
  AIRLOCK_CLI_UNKNOWN_COMMAND: {
    status: 404,
    description: "No command has this name; `airlock --help` lists them.",
  },
  AIRLOCK_CLI_UNKNOWN_AGENT: { status: 404, description: "No agent has this slug in the data directory." },
  AIRLOCK_CLI_UNKNOWN_TOOL: {
    status: 404,
    description:
      "No installed tool (or plugin namespace) has this name; the error names the nearest, `airlock agents tools <slug>` lists them.",
  },
  AIRLOCK_CLI_NOT_ENABLED: {
    status: 409,
    description: "`agents disable` named a tool that is not enabled for the agent; nothing was changed.",
  },
  AIRLOCK_CLI_NOT_FOUND: {
    status: 404,
    description:
      "Nothing to remove, revoke, disconnect or delete: no such model connection, grant, OAuth connection or snippet; nothing was changed.",
  },
  AIRLOCK_CLI_PORT_IN_USE: {
    status: 409,
    description: "The port `airlock start`/`serve` should listen on is taken (another host?); pass --port N.",
  },
  AIRLOCK_CLI_CONFIG_INVALID: {
    status: 400,
    description:
      "A setting of `airlock start`/`serve` (flag, AIRLOCK_* variable or airlock.config.json key) is malformed or unknown; the message names it.",
  },
  AIRLOCK_CLI_NODE_VERSION: {
    status: 500,
    description: "The `airlock` launcher on PATH found no Node 24 (run `npm install` in the checkout).",
  },
  AIRLOCK_CLI_LAUNCH: {
    status: 500,
    description: "The launcher on PATH could not start Node 24 for the command.",
  },
  AIRLOCK_CLI_HOST_UNREACHABLE: {
    status: 503,
    description:
      "A host is recorded as running on the data dir, but its admin API did not answer or the CLI holds no operator token for it.",
  },
});

export function cliError(code: keyof typeof CLI_ERRORS, message: string): AirlockError {
  return new AirlockError(code, message, { status: CLI_ERRORS[code].status });
}
