// The registry read-only, as the console browses it (RegistryBrowser of contracts/plugins.ts):
// search the configured registry (or one the operator names by URL, as an install spec
// `<registry URL>/name@range` may), list a package's versions, and read one version's manifest
// from the tarball an install would fetch. A read for an upgrade goes to the registry the
// active version came from, as `upgrade` itself does (lifecycle.ts).
// Invariants: nothing is installed, written or audited here (the console audits its refusals);
// the manifest comes from the tarball, checked against the packument's integrity and holding
// the name@version asked for, never from the packument's word; errors are AIRLOCK_INSTALL_*.
import { readPluginTarball, sha512Integrity } from "@airlock/sdk/package";
import semver from "semver";
import type { RegistryBrowser, RegistryReadOptions } from "../../contracts/plugins.ts";
import type { Store } from "../../state/store/types.ts";
import { pickVersion } from "./compat.ts";
import { installError } from "./errors.ts";
import { originOfSource } from "./install-verified.ts";
import { fetchPackument, fetchTarball, searchRegistry } from "./registry-client.ts";

const MAX_PREVIEW_TARBALL = 8 * 1024 * 1024;

export interface RegistryBrowserOptions {
  /** The registry `name@range` specs resolve against, if any (--registry, AIRLOCK_REGISTRY_URL). */
  registryUrl?: string | undefined;
  store: Pick<Store, "getActivation" | "getInstalledPlugin">;
}

export function createRegistryBrowser(options: RegistryBrowserOptions): RegistryBrowser {
  const { store } = options;

  const configured = (): string => {
    const url = options.registryUrl;
    if (url === undefined) {
      throw installError(
        "AIRLOCK_INSTALL_NO_REGISTRY",
        "this host has no registry: start it with --registry URL or AIRLOCK_REGISTRY_URL",
      );
    }
    return url;
  };

  /** The registry an upgrade of `ns` reads: where its active version came from. */
  const upgradeRegistry = async (ns: string): Promise<string> => {
    const activation = await store.getActivation(ns);
    const active = activation === null ? null : await store.getInstalledPlugin(ns, activation.active);
    if (active === null)
      throw installError("AIRLOCK_INSTALL_NOT_INSTALLED", `no plugin is installed under "${ns}"`);
    if (active.source.startsWith("file:")) {
      throw installError(
        "AIRLOCK_INSTALL_UPGRADE_NEEDS_REGISTRY",
        `${ns} was installed from ${active.source}; upload the new .tgz instead`,
      );
    }
    return originOfSource(active.source);
  };

  /** A registry the operator names instead of the configured one: an http(s) URL, no trailing slash. */
  const named = (url: string): string => {
    if (!/^https?:\/\/[^/\s]+/.test(url)) {
      throw installError(
        "AIRLOCK_INSTALL_SPEC_INVALID",
        `"${url}" is not a registry URL (http:// or https://)`,
        {
          registry: url,
        },
      );
    }
    return url.replace(/\/+$/, "");
  };

  const registryFor = async (name: string, opts: RegistryReadOptions | undefined): Promise<string> => {
    if (opts?.registry !== undefined) return named(opts.registry);
    return opts?.upgrade === true ? upgradeRegistry(name) : configured();
  };

  return {
    async search(text, limit, opts) {
      const registry = opts?.registry === undefined ? configured() : named(opts.registry);
      const { hits, total } = await searchRegistry(registry, text, limit);
      return { registry, total, hits };
    },

    async versions(name, opts) {
      const registry = await registryFor(name, opts);
      const doc = await fetchPackument(registry, name);
      const versions = [...doc.versions.entries()]
        .filter(([v]) => semver.valid(v) !== null)
        .sort(([a], [b]) => semver.rcompare(a, b))
        .map(([version, dist]) => ({
          version,
          signatures: dist.signatures.length,
          latest: version === doc.latest,
        }));
      return { registry, name, versions };
    },

    async fetchVersion(name, range, opts) {
      const registry = await registryFor(name, opts);
      const doc = await fetchPackument(registry, name);
      const version = pickVersion(name, [...doc.versions.keys()], range, doc.latest);
      const dist = doc.versions.get(version);
      if (dist === undefined)
        throw installError("AIRLOCK_INSTALL_REGISTRY_ERROR", `${name}@${version} has no dist`);
      const bytes = await fetchTarball(dist.tarball, MAX_PREVIEW_TARBALL);
      const integrity = sha512Integrity(bytes);
      if (integrity !== dist.integrity) {
        throw installError(
          "AIRLOCK_INSTALL_INTEGRITY_MISMATCH",
          `the tarball of ${name}@${version} does not match the registry's integrity`,
          { expected: dist.integrity, actual: integrity },
        );
      }
      const { manifest } = await readPluginTarball(bytes);
      if (manifest.namespace !== name || manifest.version !== version) {
        throw installError(
          "AIRLOCK_INSTALL_MISMATCH",
          `the tarball of ${name}@${version} holds ${manifest.namespace}@${manifest.version}`,
        );
      }
      return { registry, name, version, manifest, signatures: dist.signatures.length };
    },
  };
}
