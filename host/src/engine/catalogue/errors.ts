// Error codes of the catalogue, agents and the per-agent secrets API. These are thrown (the
// admin API maps them to their status); a tool call never throws them, it gets a result.
import { defineErrorCodes } from "@airlock/sdk";

export const CATALOGUE_ERRORS = defineErrorCodes({
  AIRLOCK_AGENT_NOT_FOUND: { status: 404, description: "No agent has this slug; create it first." },
  AIRLOCK_AGENT_INVALID_SLUG: {
    status: 400,
    description:
      "An agent slug is lowercase letters, digits and dashes, 1–64 chars, starting with a letter or digit.",
  },
  AIRLOCK_AGENT_INVALID_LEVEL: {
    status: 400,
    description: 'A knowledge level is one of "none", "read", "write", "manage".',
  },
  AIRLOCK_CATALOGUE_TOOL_UNKNOWN: {
    status: 404,
    description: "No active plugin provides this tool id (`<namespace>:<tool>` or `<namespace>__<tool>`).",
  },
  AIRLOCK_CATALOGUE_INVALID_CHANGE: {
    status: 400,
    description: "An enablement change maps a tool id to something other than true or false.",
  },
  AIRLOCK_CATALOGUE_COLLISION: {
    status: 409,
    description: "Two active plugin versions declare the same tool id; the later one is not served.",
  },
  AIRLOCK_CATALOGUE_RECORD_MISSING: {
    status: 500,
    description: "An activation names a plugin version with no install record; that plugin is not served.",
  },
  AIRLOCK_INTERNAL: {
    status: 500,
    description: "An operation failed with an error that carried no code; the audit entry records this code.",
  },
  AIRLOCK_SECRET_UNKNOWN_KEY: {
    status: 400,
    description: "No active tool declares this secret key; only declared keys can be set.",
  },
  AIRLOCK_SECRET_INVALID_CHOICE: {
    status: 400,
    description: "A select secret's value must be one of the choices its spec lists.",
  },
  AIRLOCK_SECRET_INVALID_VALUE: {
    status: 400,
    description: "A secret value is a string of at most 64 KiB.",
  },
});

export type CatalogueErrorCode = keyof typeof CATALOGUE_ERRORS;
