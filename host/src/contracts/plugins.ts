// Plugins as the host's API manages them: install, upgrade, roll back and uninstall options
// and reports, the installed versions, each plugin's sandbox worker tier, and the sandbox's
// counters an operator watches, and the registry as the console browses it (search, a
// package's versions, one version's manifest read from its checked tarball).
// Invariants: a report names what changed and nothing secret; `allowUnsigned`,
// `allowDowngrade`, `allowPrerelease` and `trustKeys` are an operator's explicit decisions,
// never defaults; an uninstall keeps the agents' data unless `purge` asked otherwise; browsing
// the registry installs and writes nothing.
import type { PluginManifest } from "@airlock/sdk/manifest";

export interface InstallOptions {
  /** Allow an unsigned package or an unknown signer from this source (operator decision). */
  allowUnsigned?: boolean;
  /** Allow a version lower than the active one, or of the same precedence (operator decision). */
  allowDowngrade?: boolean;
  /** Allow a prerelease version that no range asked for (a file, a tarball, a `latest` tag). */
  allowPrerelease?: boolean;
  /** Signatures of the tarball's integrity (installTarball only; registry installs take them from the packument). */
  signatures?: Array<{ keyid: string; sig: string }>;
  /**
   * Ed25519 public keys (PEM) the operator trusts for this operation (`--trust-key`). The key
   * that signed what is installed is kept for its namespace in the store, so upgrades need no flag.
   */
  trustKeys?: string[];
}

export interface InstallReport {
  namespace: string;
  version: string;
  previous: string | null;
  tools: string[];
  signer: string | null;
  /** True when this exact version (same integrity) was already the active one: nothing changed. */
  alreadyActive?: true;
}

export interface UninstallReport {
  namespace: string;
  removedVersions: string[];
  disabledForAgents: number;
  kept: { knowledgeDocuments: number; secrets: string[] };
  purged: { knowledgeDocuments: number; secrets: string[] } | null;
}

/**
 * A publisher key a namespace trusts (kept in the store, so every host on it trusts it): the key
 * that verified an install of that namespace. Its PEM stays in the store.
 */
export interface TrustedKeyView {
  namespace: string;
  /** `SHA256:<base64>`, as signatures and install reports name it. */
  keyId: string;
  addedAt: string;
}

/** A plugin's sandbox worker tier: a worker of its own, or the shared pool. */
export type WorkerTier = "own" | "shared";

export interface WorkerTierView {
  tier: WorkerTier;
  /**
   * Why it is alone: an operator's choice, a quarantine after it aborted a shared worker, or a
   * CPU move after its calls were ended by their CPU limit (until the host restarts).
   */
  reason: "operator" | "quarantine" | "cpu_limit" | null;
  since: string | null;
  /** A quarantine's version, worker index and signal; a CPU move's version, worker and rule. */
  details: Record<string, unknown> | null;
}

export interface InstalledPluginView {
  namespace: string;
  active: string;
  previous: string | null;
  versions: string[];
  tools: string[];
  signer: string | null;
  source: string;
  /** Its sandbox worker tier (the host fills it in; the installer's own listing leaves it out). */
  worker?: WorkerTierView;
}

/** The sandbox's counters (metrics; isolation/sandbox/). */
export interface SandboxStats {
  mode: "in-process" | "workers";
  workers: number;
  loadedPlugins: number;
  busyCalls: number;
  restarts: number;
}

/**
 * Which registry a read goes to: `registry` when named (an http(s) URL, as an install spec
 * `<registry URL>/name@range` names one), else with `upgrade` the one `name`'s active version came
 * from, else the configured one.
 */
export interface RegistryReadOptions {
  upgrade?: boolean;
  registry?: string;
}

export interface RegistrySearchResult {
  /** The registry searched. */
  registry: string;
  total: number;
  hits: Array<{ name: string; version: string; description: string }>;
}

export interface RegistryVersions {
  registry: string;
  name: string;
  /** The published (valid semver) versions, newest first, with how many signatures each carries. */
  versions: Array<{ version: string; signatures: number; latest: boolean }>;
}

export interface RegistryVersion {
  registry: string;
  name: string;
  /** The version `range` picked, as an install would pick it. */
  version: string;
  /** The manifest of its tarball, checked against the packument's integrity (never the packument's word). */
  manifest: PluginManifest;
  signatures: number;
}

/**
 * The registry read-only, for the console. Errors are AIRLOCK_INSTALL_* (NO_REGISTRY when none
 * is configured; NOT_INSTALLED / UPGRADE_NEEDS_REGISTRY for an upgrade read of a plugin not
 * installed, or installed from a file; the registry client's and the integrity checks' codes).
 */
export interface RegistryBrowser {
  /** The packages of the registry named (else the configured one) whose name (or description) contains `text`. */
  search(
    text: string,
    limit: number,
    options?: Pick<RegistryReadOptions, "registry">,
  ): Promise<RegistrySearchResult>;
  versions(name: string, options?: RegistryReadOptions): Promise<RegistryVersions>;
  /** Picks `range` (empty: latest), fetches its tarball and checks its integrity and name@version. */
  fetchVersion(name: string, range: string, options?: RegistryReadOptions): Promise<RegistryVersion>;
}
