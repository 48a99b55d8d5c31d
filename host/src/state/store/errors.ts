// Error catalogue of the store and of the two store-backed capabilities (artifacts, knowledge).
// Invariants: each code is defined once here with its HTTP status and a one-line description;
// a code is never reused for a different failure. Secrets codes live in host/src/state/secrets/errors.ts.
import { AirlockError, defineErrorCodes } from "@airlock/sdk";

export const STORE_ERRORS = defineErrorCodes({
  AIRLOCK_STORE_CONFIG_INVALID: {
    status: 500,
    description:
      "The store configuration is malformed (unknown kind, missing data dir or URL, bad schema name).",
  },
  AIRLOCK_STORE_OPEN_FAILED: {
    status: 500,
    description: "The database could not be opened or reached; check the data dir or the PostgreSQL URL.",
  },
  AIRLOCK_STORE_MIGRATION_FAILED: {
    status: 500,
    description: "A schema migration failed; nothing of it was applied. The cause names the statement.",
  },
  AIRLOCK_STORE_SCHEMA_TOO_NEW: {
    status: 500,
    description: "The database was migrated by a newer host version than this one; upgrade the host.",
  },
  AIRLOCK_STORE_UNAVAILABLE: {
    status: 503,
    description:
      "The store cannot be reached or written right now (PostgreSQL down or restarting, a connection cut, SQLite busy or an I/O error); nothing was acknowledged. Retry after the Retry-After seconds.",
  },
  AIRLOCK_STORE_FULL: {
    status: 507,
    description:
      "The store refused a write for lack of space (SQLite's disk or page limit full, PostgreSQL disk_full); nothing was acknowledged. Free space, then retry.",
  },
  AIRLOCK_STORE_INVALID_INPUT: {
    status: 400,
    description: "A value handed to the store is out of its domain (an unknown knowledge level, a bad key).",
  },
  AIRLOCK_ARTIFACT_INVALID: {
    status: 400,
    description: "ctx.artifacts.put got a malformed artifact: it needs {buffer: Uint8Array, filename, mime}.",
  },
  AIRLOCK_ARTIFACT_TOO_LARGE: {
    status: 413,
    description: "The artifact is larger than the host's per-artifact size cap.",
  },
  AIRLOCK_ARTIFACT_LIMIT: {
    status: 429,
    description: "Storing the artifact would exceed the per-conversation or global artifact caps.",
  },
  AIRLOCK_ARTIFACT_UNAVAILABLE: {
    status: 403,
    description:
      "Audit only: ctx.artifacts.take of a handle this call cannot take (malformed, unknown, taken, expired or another conversation's). The plugin reads `null`.",
  },
  AIRLOCK_KNOWLEDGE_INVALID: {
    status: 400,
    description: "A ctx.knowledge call got malformed arguments (ids, filenames, content must be strings).",
  },
  AIRLOCK_KNOWLEDGE_NOT_GRANTED: {
    status: 403,
    description: "The call has no knowledge level, so ctx.knowledge is not available to it.",
  },
  AIRLOCK_KNOWLEDGE_UNAVAILABLE: {
    status: 503,
    description:
      "The knowledge base could not be reached (store failure); nothing was changed by a failed write.",
  },
});

export type StoreErrorCode = keyof typeof STORE_ERRORS;

/** Builds an AirlockError of this catalogue with its catalogued status. */
export function storeError(
  code: StoreErrorCode,
  message: string,
  options: { cause?: unknown; details?: Record<string, unknown> } = {},
): AirlockError {
  return new AirlockError(code, message, { ...options, status: STORE_ERRORS[code].status });
}
