// Plugins as the host's API manages them: install, upgrade, roll back and uninstall options
// and reports, the installed versions, each plugin's sandbox worker tier, and the sandbox's
// counters an operator watches.
// Invariants: a report names what changed and nothing secret; `allowUnsigned`,
// `allowDowngrade`, `allowPrerelease` and `trustKeys` are an operator's explicit decisions,
// never defaults; an uninstall keeps the agents' data unless `purge` asked otherwise.

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
   * that signed what is installed is remembered for its namespace, so upgrades need no flag.
   */
  trustKeys?: string[];
}

export interface InstallReport {
  namespace: string;
  version: string;
  previous: string | null;
  tools: string[];
  signer: string | null;
}

export interface UninstallReport {
  namespace: string;
  removedVersions: string[];
  disabledForAgents: number;
  kept: { knowledgeDocuments: number; secrets: string[] };
  purged: { knowledgeDocuments: number; secrets: string[] } | null;
}

/** A plugin's sandbox worker tier: a worker of its own, or the shared pool. */
export type WorkerTier = "own" | "shared";

export interface WorkerTierView {
  tier: WorkerTier;
  /** Why it is alone: an operator's choice, or a quarantine after it aborted a shared worker. */
  reason: "operator" | "quarantine" | null;
  since: string | null;
  /** A quarantine's version, worker index and signal. */
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
