// Host options (`createHost(options)`) and their defaults. Pure: resolving options touches
// no disk and opens nothing; host.ts does that.
// Invariants: every limit the operator sets is a ceiling — a plugin gets the minimum of its
// manifest's request and the ceiling (sandbox/limits.ts resolveLimits), the ceiling when it asks nothing.
import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import { join } from "node:path";
import { SDK_VERSION } from "@airlock/sdk/manifest";
import type { TrustConfig } from "./engine/install/index.ts";
import { resolveTaskSettings } from "./engine/tasks/settings.ts";
import type { TaskSettings } from "./engine/tasks/types.ts";
import type { EgressPolicy, Resolver } from "./isolation/egress/types.ts";
import type { CpuShare } from "./isolation/sandbox/index.ts";
import type { EffectiveLimits, Sandbox } from "./isolation/sandbox/types.ts";
import type { ReplicaSettings } from "./state/cluster/membership.ts";
import type { Store } from "./state/store/types.ts";

export type StoreOption =
  /**
   * SQLite in `dataDir` (default: the host's dataDir). `durability`: "normal" (default; survives
   * a killed process) or "full" (also survives power loss; fsync per commit) — docs/store.md.
   * `maxBytes`: a cap on airlock.db's size (SQLite's max_page_count, never below its size now);
   * a write past it is refused with AIRLOCK_STORE_FULL, as on a full disk.
   */
  | { kind: "sqlite"; dataDir?: string; durability?: "full" | "normal"; maxBytes?: number }
  | { kind: "postgres"; url: string; schema?: string; maxConnections?: number }
  /** An already-open store (embedding, tests); the host does not close it. */
  | { kind: "instance"; store: Store };

export interface SandboxOption {
  mode: "in-process" | "workers";
  /** Worker processes in "workers" mode. */
  workers?: number;
  /**
   * "workers" mode: how long an idle worker stays awake for a call a front door announced
   * (AirlockHost.expectCall; docs/sandbox.md). Default 0: no worker is woken early (measured
   * slower on a loaded 2-core machine, where the woken worker shared the host's CPU).
   */
  wakeSpinMs?: number;
  /**
   * "workers" mode: when a plugin whose calls its CPU limit ends leaves the shared workers for a
   * low-priority worker of its own (docs/sandbox.md). Default `{moveAfter: 1, windowMs: 60000,
   * priority: 10}`.
   */
  cpuShare?: Partial<CpuShare>;
  /** An already-built sandbox (embedding, tests); the host closes it on close(). */
  instance?: Sandbox;
}

/** Trust roots of the installer: keys, a keys directory, sources allowed to be unsigned. */
export type TrustOptions = TrustConfig;

export interface HostOptions {
  /** Where the SQLite file, the vault key and installed plugins live. Default `./.airlock-data`. */
  dataDir?: string;
  store?: StoreOption;
  sandbox?: SandboxOption;
  /** Operator ceilings on plugin limits. */
  limits?: Partial<EffectiveLimits>;
  registryUrl?: string;
  trust?: TrustOptions;
  /** Operator egress policy: narrows what plugins' manifests declare. */
  egress?: EgressPolicy;
  /** Reported as AirlockHost.version and checked against manifests' engine ranges. */
  hostVersion?: string;
  /** Run every tool without waiting for approvals (development only). */
  autoApprove?: boolean;
  /** Master key for secrets at rest (base64, 32 bytes); default: a key file in dataDir. */
  masterKey?: string;
  /** Where internal failures that never fail a call are reported. Default: stderr. */
  onInternalError?: (what: string, error: unknown) => void;
  /**
   * This host as one replica of several sharing a PostgreSQL store (docs/deploy.md): its id
   * (default $AIRLOCK_REPLICA_ID, else `<hostname>-<pid>-<random>`), heartbeat interval
   * (default 1 s) and after how long a silent replica counts as dead (default 5 s).
   */
  replica?: Partial<ReplicaSettings>;
  /**
   * The DNS resolver ctx.fetch asks (tests, split-horizon embedding); every answer still goes
   * through the address policy. Default: the system resolver (`dns.lookup`, all addresses).
   */
  resolver?: Resolver;
  /** The clock (ms since the epoch) artifact TTLs and their sweeper read. Default `Date.now`. */
  clock?: () => number;
  /**
   * The URL people's browsers reach this host at, for OAuth connect links and the callback
   * (`https://airlock.example.com`). Default $AIRLOCK_PUBLIC_URL, else the admin server's own URL.
   */
  publicUrl?: string;
  /** Long-running calls run as tasks: result TTL, wall ceilings, polling hint, worker slots (tasks/types.ts). */
  tasks?: Partial<TaskSettings>;
  /**
   * Remote MCP servers (docs/remote.md): how long an idle session toward one is kept for the next
   * call, in ms (default 60 000; 0 opens a new session for every call).
   */
  remote?: { sessionIdleMs?: number };
  /** V8 code caches of plugin bundles on disk (`<dataDir>/code-cache`); false turns them off. Default true. */
  codeCache?: boolean;
}

/** One version for the whole product: the SDK's (every package.json says the same, checked by a test). */
export const DEFAULT_HOST_VERSION = SDK_VERSION;

export interface ResolvedHostOptions {
  dataDir: string;
  pluginsDir: string;
  store: StoreOption;
  sandbox: SandboxOption;
  /** Operator ceilings; sandbox/limits.ts `resolveLimits` fills defaults and intersects with manifests. */
  ceilings: Partial<EffectiveLimits>;
  registryUrl: string | undefined;
  trust: TrustOptions;
  egress: EgressPolicy;
  hostVersion: string;
  autoApprove: boolean;
  masterKey: string | undefined;
  onInternalError: (what: string, error: unknown) => void;
  replica: ReplicaSettings;
  resolver: Resolver | undefined;
  clock: () => number;
  publicUrl: string | undefined;
  tasks: TaskSettings;
  remote: { sessionIdleMs: number };
  codeCache: boolean;
}

function reportToStderr(what: string, error: unknown): void {
  const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  process.stderr.write(`[airlock] ${what}: ${message}\n`);
}

export function resolveHostOptions(options: HostOptions = {}): ResolvedHostOptions {
  const dataDir = options.dataDir ?? join(process.cwd(), ".airlock-data");
  return {
    dataDir,
    pluginsDir: join(dataDir, "plugins"),
    store: options.store ?? { kind: "sqlite", dataDir },
    sandbox: options.sandbox ?? { mode: "workers" },
    ceilings: stripUndefined(options.limits ?? {}),
    registryUrl: options.registryUrl,
    trust: options.trust ?? {},
    egress: options.egress ?? {},
    hostVersion: options.hostVersion ?? DEFAULT_HOST_VERSION,
    autoApprove: options.autoApprove === true,
    masterKey: options.masterKey,
    onInternalError: options.onInternalError ?? reportToStderr,
    replica: {
      id: options.replica?.id ?? process.env.AIRLOCK_REPLICA_ID ?? defaultReplicaId(),
      heartbeatMs: options.replica?.heartbeatMs ?? 1000,
      staleMs: options.replica?.staleMs ?? 5000,
    },
    resolver: options.resolver,
    clock: options.clock ?? Date.now,
    publicUrl: publicUrl(options.publicUrl ?? (process.env.AIRLOCK_PUBLIC_URL || undefined)),
    tasks: resolveTaskSettings(options.tasks),
    remote: { sessionIdleMs: sessionIdleMs(options.remote?.sessionIdleMs) },
    codeCache: options.codeCache !== false,
  };
}

/** The operator's public URL, refused at start unless it is an http(s) URL (never a 500 later). */
function publicUrl(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  if (url === undefined || (url.protocol !== "http:" && url.protocol !== "https:")) {
    throw new RangeError(
      `the public URL (publicUrl, AIRLOCK_PUBLIC_URL) must be an http(s) URL, not ${JSON.stringify(value)}`,
    );
  }
  return value;
}

function sessionIdleMs(value: number | undefined): number {
  if (value === undefined) return 60_000;
  if (!Number.isInteger(value) || value < 0 || value > 3_600_000) {
    throw new RangeError(
      `remote.sessionIdleMs must be an integer from 0 to 3600000 ms, not ${String(value)}`,
    );
  }
  return value;
}

function stripUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

function defaultReplicaId(): string {
  return `${hostname()}-${process.pid}-${randomBytes(3).toString("hex")}`;
}
