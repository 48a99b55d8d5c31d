// Error catalogue of the installer and the plugin lifecycle (host/src/engine/install/). Refusals
// from the tarball reader keep their own AIRLOCK_PACKAGE_* codes (sdk/src/package/errors.ts).
import { defineErrorCodes, type ErrorFactory, errorFactory } from "@airlock/sdk/errors";

export const INSTALL_ERRORS = defineErrorCodes({
  AIRLOCK_INSTALL_SPEC_INVALID: {
    status: 400,
    description: "The install spec is not `name@range`, `<registry URL>/name@range` or a path to a .tgz.",
  },
  AIRLOCK_INSTALL_RANGE_INVALID: {
    status: 400,
    description: "The version range is not a valid semver range.",
  },
  AIRLOCK_INSTALL_NO_REGISTRY: {
    status: 400,
    description: "A `name@range` install needs a registry URL (--registry).",
  },
  AIRLOCK_INSTALL_REGISTRY_UNREACHABLE: { status: 502, description: "The registry could not be reached." },
  AIRLOCK_INSTALL_REGISTRY_ERROR: {
    status: 502,
    description: "The registry answered with an error or a malformed package document.",
  },
  AIRLOCK_INSTALL_NOT_FOUND: { status: 404, description: "The registry has no such package." },
  AIRLOCK_INSTALL_NO_MATCHING_VERSION: {
    status: 404,
    description:
      "No published version satisfies the range (prereleases count only when the range names one).",
  },
  AIRLOCK_INSTALL_FILE_UNREADABLE: { status: 400, description: "The .tgz file could not be read." },
  AIRLOCK_INSTALL_INTEGRITY_MISMATCH: {
    status: 422,
    description: "The downloaded tarball's sha512 differs from the integrity the registry announced.",
  },
  AIRLOCK_INSTALL_SIGNATURE_INVALID: {
    status: 422,
    description:
      "A signature by a trusted key does not verify: the package or its integrity was tampered with.",
  },
  AIRLOCK_INSTALL_UNSIGNED: {
    status: 422,
    description:
      "The package carries no signature; allow unsigned packages from this source explicitly to install it.",
  },
  AIRLOCK_INSTALL_KEY_NOT_TRUSTED: {
    status: 404,
    description:
      "The namespace does not trust that key (nothing to forget); list its keys with `airlock plugins keys <namespace>`.",
  },
  AIRLOCK_INSTALL_UNKNOWN_SIGNER: {
    status: 422,
    description:
      "No signature is by a trusted key; add the signer's public key to the trust roots, or allow this source.",
  },
  AIRLOCK_INSTALL_TRUST_INVALID: {
    status: 400,
    description: "A configured trust root is not an ed25519 public key PEM.",
  },
  AIRLOCK_INSTALL_MISMATCH: {
    status: 422,
    description: "The tarball is not the package and version that was resolved (name or version differs).",
  },
  AIRLOCK_INSTALL_ENGINE_UNSUPPORTED: {
    status: 422,
    description:
      "The manifest's engine range excludes this host's version (prerelease hosts match only ranges naming one).",
  },
  AIRLOCK_INSTALL_SDK_UNSUPPORTED: {
    status: 422,
    description: "The plugin was built with an SDK version this host does not support.",
  },
  AIRLOCK_INSTALL_USES_EXCEEDED: {
    status: 422,
    description:
      "A tool's per-tool grants (`uses`) ask for more than its plugin's manifest declares (the check `airlock-plugin build` runs, run again on install); `details.problems` lists each with its JSON path. Nothing is installed.",
  },
  AIRLOCK_INSTALL_NAMESPACE_TAKEN: {
    status: 409,
    description: "The namespace is held by a plugin installed from another source; uninstall it first.",
  },
  AIRLOCK_INSTALL_NAMESPACE_LOOKALIKE: {
    status: 409,
    description:
      "The namespace folds to the same confusable skeleton as an installed one (1/l/i, 0/o, rn/m, hyphens); pick another.",
  },
  AIRLOCK_INSTALL_OAUTH_PROVIDER_CONFLICT: {
    status: 409,
    description:
      "The plugin declares an OAuth provider name that an installed plugin declares differently (endpoints, scopes or API hosts).",
  },
  AIRLOCK_INSTALL_SIGNER_CHANGED: {
    status: 409,
    description:
      "The new version is signed by a different key than the installed one; uninstall first to accept it.",
  },
  AIRLOCK_INSTALL_VERSION_CONFLICT: {
    status: 409,
    description: "That version is already installed with different contents (integrity differs).",
  },
  AIRLOCK_INSTALL_DOWNGRADE: {
    status: 409,
    description:
      "The version is lower than the active one, or of the same precedence (other build metadata); pass --allow-downgrade, or roll back.",
  },
  AIRLOCK_INSTALL_PRERELEASE: {
    status: 409,
    description:
      "The version is a prerelease and none was asked for (a range naming a prerelease, or --allow-prerelease).",
  },
  AIRLOCK_INSTALL_NOT_INSTALLED: { status: 404, description: "No plugin is installed under that namespace." },
  AIRLOCK_INSTALL_NO_PREVIOUS: { status: 409, description: "There is no previous version to roll back to." },
  AIRLOCK_INSTALL_UPGRADE_NEEDS_REGISTRY: {
    status: 409,
    description: "The active version was installed from a file; install the new .tgz instead of upgrading.",
  },
  AIRLOCK_INSTALL_LOCKED: {
    status: 409,
    description: "Another install, upgrade, rollback or uninstall of this namespace is still running.",
  },
  AIRLOCK_INSTALL_FILES_MISSING: {
    status: 500,
    description: "An installed version's files are missing on disk; reinstall it.",
  },
});

export type InstallErrorCode = keyof typeof INSTALL_ERRORS;

export const installError: ErrorFactory<typeof INSTALL_ERRORS> = errorFactory(INSTALL_ERRORS);
