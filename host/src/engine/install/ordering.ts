// Versions only move forward: the checks an install makes, under the namespace lock, between
// the active version and the one it would activate.
// Contract: a version of lower or equal semver precedence than the active one is refused with
// AIRLOCK_INSTALL_DOWNGRADE unless the operator passes allowDowngrade (equal precedence covers
// `1.2.0+other-build` over `1.2.0`); re-installing the active version itself is not a move and
// passes. A prerelease is installed only when asked for: a registry range that names one, or
// allowPrerelease (a file names no range) — else AIRLOCK_INSTALL_PRERELEASE. Rollback does not
// come through here: it stays the one-step way back.
import semver from "semver";
import { installError } from "./errors.ts";

export interface OrderingInput {
  namespace: string;
  /** The version to activate (a valid semver version: the manifest was validated). */
  version: string;
  /** The active version, or null for a first install. */
  active: string | null;
  allowDowngrade: boolean;
  /** True when the operator asked for a prerelease (range naming one, or allowPrerelease). */
  prereleaseAsked: boolean;
}

/** Whether a range names a prerelease (`^1.2.0-beta.0`, `1.3.0-rc.1`): asking for one. */
export function rangeNamesPrerelease(range: string): boolean {
  return /\d+\.\d+\.\d+-[0-9A-Za-z]/.test(range);
}

export function checkVersionOrder(input: OrderingInput): void {
  const { namespace, version, active } = input;
  if (semver.prerelease(version) !== null && !input.prereleaseAsked) {
    throw installError(
      "AIRLOCK_INSTALL_PRERELEASE",
      `${namespace}@${version} is a prerelease; ask for it explicitly (a range naming a prerelease, or --allow-prerelease)`,
      { namespace, version },
    );
  }
  if (active === null || active === version || input.allowDowngrade) return;
  if (semver.compare(version, active) <= 0) {
    const same = semver.compare(version, active) === 0;
    throw installError(
      "AIRLOCK_INSTALL_DOWNGRADE",
      same
        ? `${namespace}@${version} has the same precedence as the active ${active} (only build metadata differs); pass --allow-downgrade to replace it`
        : `${namespace}@${version} is lower than the active ${active}; use \`airlock plugins rollback\` for the previous version, or pass --allow-downgrade`,
      { namespace, version, active },
    );
  }
}
