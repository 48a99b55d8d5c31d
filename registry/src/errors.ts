// Error catalogue of the registry server. Every refusal crosses the wire as
// `{error: {code, message, details?}}` with the status listed here.
import { defineErrorCodes, type ErrorFactory, errorFactory } from "@airlock/sdk/errors";

export const REGISTRY_ERRORS = defineErrorCodes({
  AIRLOCK_REGISTRY_NOT_FOUND: { status: 404, description: "No such package, version or tarball." },
  AIRLOCK_REGISTRY_UNAUTHORIZED: {
    status: 401,
    description:
      "Publishing needs `Authorization: Bearer <token>` with a token issued by `airlock-registry token create`.",
  },
  AIRLOCK_REGISTRY_FORBIDDEN: {
    status: 403,
    description: "The namespace is owned by another publisher; only the owner's tokens publish new versions.",
  },
  AIRLOCK_REGISTRY_VERSION_EXISTS: {
    status: 409,
    description: "That version is already published; versions are immutable, publish a new version instead.",
  },
  AIRLOCK_REGISTRY_NAME_INVALID: {
    status: 400,
    description: "The package name is not a valid plugin namespace (^[a-z][a-z0-9-]{1,31}$).",
  },
  AIRLOCK_REGISTRY_NAME_RESERVED: {
    status: 403,
    description: "The namespace is reserved for Airlock itself.",
  },
  AIRLOCK_REGISTRY_NAME_LOOKALIKE: {
    status: 403,
    description:
      "The name mixes scripts or uses confusable characters, or folds to the same skeleton as an existing package.",
  },
  AIRLOCK_REGISTRY_BAD_REQUEST: {
    status: 400,
    description: "The publish document is malformed; the message names the field.",
  },
  AIRLOCK_REGISTRY_MISMATCH: {
    status: 422,
    description: "The publish document disagrees with the tarball (name, version, manifest or integrity).",
  },
  AIRLOCK_REGISTRY_LINT_FAILED: {
    status: 422,
    description: "A tool's input schema fails the strict-mode lint.",
  },
  AIRLOCK_REGISTRY_USES_EXCEEDED: {
    status: 422,
    description:
      "A tool's `uses` (its per-tool grants) reaches beyond what its plugin declares; each problem names its path.",
  },
  AIRLOCK_REGISTRY_SIGNATURE_MALFORMED: {
    status: 422,
    description:
      'A signature entry is not `{keyid: "SHA256:...", sig: <base64>}` (the host verifies signatures against its trust roots).',
  },
  AIRLOCK_REGISTRY_TOO_LARGE: {
    status: 413,
    description: "The request body or tarball is larger than the registry accepts.",
  },
  AIRLOCK_REGISTRY_PORT_IN_USE: {
    status: 409,
    description:
      "`airlock-registry serve` cannot listen: the port is taken; pass --port N (0 = any free port).",
  },
  AIRLOCK_REGISTRY_DATA_DIR_INVALID: {
    status: 400,
    description:
      "The --data-dir is a source folder (it holds a package.json), not a registry's data; name an empty or registry folder.",
  },
  AIRLOCK_REGISTRY_USAGE: {
    status: 400,
    description:
      "`airlock-registry` was called wrongly: unknown option, missing or malformed argument; the error names it and the usage.",
  },
  AIRLOCK_REGISTRY_UNKNOWN_COMMAND: {
    status: 404,
    description:
      "No `airlock-registry` command has this name; the error names the nearest, --help lists them.",
  },
  AIRLOCK_REGISTRY_INTERNAL: {
    status: 500,
    description: "An unexpected failure inside the registry; nothing was stored.",
  },
});

export type RegistryErrorCode = keyof typeof REGISTRY_ERRORS;

export const registryError: ErrorFactory<typeof REGISTRY_ERRORS> = errorFactory(REGISTRY_ERRORS);
