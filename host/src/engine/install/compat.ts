// Version decisions: which published version a range picks, and whether a manifest may run on
// this host. Contract: both fail closed with a clear code.
// Prerelease semantics are explicit and the same everywhere (`includePrerelease: false`, the
// semver default): a prerelease version satisfies a range only when the range itself names a
// prerelease of the same major.minor.patch. So `^1.0.0` never picks `1.1.0-beta.1`; an engine
// `<2.0.0` does NOT admit a `2.0.0-alpha` host; a plugin built with SDK `1.1.0-rc.1` is refused
// by a host supporting `^1.0.0` unless that range opts in (`^1.0.0 || 1.1.0-rc.1`).
import type { PluginManifest } from "@airlock/sdk/manifest";
import semver from "semver";
import { installError } from "./errors.ts";

const STRICT = { includePrerelease: false } as const;

export function validRange(range: string): string {
  const valid = semver.validRange(range, STRICT);
  if (valid === null) {
    throw installError(
      "AIRLOCK_INSTALL_RANGE_INVALID",
      `"${range}" is not a semver range (e.g. ^1.2.0, ~1.2, 1.x, >=1 <2)`,
      {
        range,
      },
    );
  }
  return valid;
}

/** The highest version satisfying `range`; `latest` (or an empty range) follows dist-tags.latest. */
export function pickVersion(
  name: string,
  versions: readonly string[],
  range: string,
  latestTag: string | undefined,
): string {
  const published = versions.filter((v) => semver.valid(v) !== null);
  if ((range === "" || range === "latest") && latestTag !== undefined && published.includes(latestTag))
    return latestTag;
  const effective = range === "" || range === "latest" ? "*" : validRange(range);
  const picked = semver.maxSatisfying(published, effective, STRICT);
  if (picked === null) {
    throw installError(
      "AIRLOCK_INSTALL_NO_MATCHING_VERSION",
      `no version of ${name} satisfies "${range || "*"}"; published: ${published.join(", ") || "none"} (prereleases need a range that names one)`,
      { name, range, published },
    );
  }
  return picked;
}

export function checkCompatibility(
  manifest: PluginManifest,
  hostVersion: string,
  supportedSdk: string,
): void {
  const engine = semver.validRange(manifest.engine, STRICT);
  if (engine === null || !semver.satisfies(hostVersion, engine, STRICT)) {
    throw installError(
      "AIRLOCK_INSTALL_ENGINE_UNSUPPORTED",
      engine === null
        ? `${manifest.namespace}@${manifest.version} declares engine "${manifest.engine}", which is not a semver range`
        : `${manifest.namespace}@${manifest.version} needs a host ${manifest.engine}; this host is ${hostVersion}`,
      { engine: manifest.engine, hostVersion },
    );
  }
  if (!semver.satisfies(manifest.sdk, supportedSdk, STRICT)) {
    throw installError(
      "AIRLOCK_INSTALL_SDK_UNSUPPORTED",
      `${manifest.namespace}@${manifest.version} was built with SDK ${manifest.sdk}; this host supports ${supportedSdk}`,
      { sdk: manifest.sdk, supportedSdk },
    );
  }
}
