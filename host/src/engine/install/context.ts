// What every lifecycle operation shares: the configuration given to createPluginLifecycle,
// normalised (absolute data dir), plus a few helpers. Plain data and functions, no state.
import type { TarballLimits } from "@airlock/sdk/package";
import type { InstalledPluginRecord, Store } from "../../state/store/types.ts";
import type { TrustConfig } from "./trust.ts";

export interface LifecycleFaults {
  /** Runs after the files are staged, before the rename (crash and interruption tests). */
  afterStaged?(stagingDir: string): void | Promise<void>;
  /** Runs after the rename, before the store record. */
  afterCommitted?(versionDir: string): void | Promise<void>;
}

export interface PluginLifecycleOptions {
  store: Store;
  /** Plugin files live in `<dataDir>/plugins/`. */
  dataDir: string;
  /** Registry base URL for `name@range` specs. */
  registryUrl?: string;
  trust: TrustConfig;
  /** This host's version, checked against each manifest's `engine` range. */
  hostVersion: string;
  /** Semver range of SDK versions this host supports, checked against each manifest's `sdk`. */
  supportedSdk: string;
  /** Caps for reading tarballs (defaults: DEFAULT_TARBALL_LIMITS). */
  limits?: Partial<TarballLimits>;
  /** Base for relative .tgz paths; default process.cwd(). */
  cwd?: string;
  /** A version became active (install, upgrade, rollback): load it, drop the old isolate. */
  onActivated?(record: InstalledPluginRecord): void | Promise<void>;
  /** A version was removed from disk and store (uninstall, or pruned after an upgrade). */
  onRemoved?(namespace: string, version: string): void | Promise<void>;
  faults?: LifecycleFaults;
}

export interface LifecycleContext extends PluginLifecycleOptions {
  limits: Partial<TarballLimits>;
  cwd: string;
  /** Whether a recorded path (relative to the data dir, files.ts) holds a version's three files. */
  filesPresent(path: string): boolean;
}
