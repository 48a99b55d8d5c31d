// Host options a surface or an embedder hands the host that are plain types: the operator's
// ceilings on plugin limits, the egress policy (what plugins may reach beyond their manifests)
// and the name resolution ctx.fetch uses. config.ts assembles them into HostOptions;
// isolation/sandbox/ and isolation/egress/ enforce them.
// Invariants: the policy only narrows what a grant's egress rules declare, never widens it;
// loopback/private targets are reachable only through an explicit `allowPrivate` entry; the
// gate connects only to addresses the resolver returned; a plugin gets the minimum of its
// manifest's request and the operator's ceiling (sandbox/limits.ts resolveLimits).

/** Limits in force for one plugin: min(operator ceiling, manifest request), defaults filled. */
export interface EffectiveLimits {
  /** CPU time of one call, enforced by the isolate. */
  cpuMs: number;
  /** Wall-clock deadline of one call, enforced by the host (counts time spent awaiting). */
  wallMs: number;
  /** V8 heap limit of the plugin's isolate. */
  memoryMb: number;
  maxInputBytes: number;
  maxResultBytes: number;
  /** Concurrent calls into this plugin. */
  concurrency: number;
  /** Capability (bridge) calls allowed in one tool call. */
  capabilityCalls: number;
}

/** One answer of name resolution, as `dns.lookup(name, {all: true})` gives it. */
export interface ResolvedAddress {
  address: string;
  family: 4 | 6 | number;
}

/** The host's name resolution. The gate calls it once per hop and connects only to what it returned. */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

/**
 * Which hosts each plugin namespace may reach, on top of what its manifest declares.
 * A function decides per (namespace, host); a record maps a namespace to host patterns
 * (`api.example.com`, `*.example.com` for subdomains, `*` for any host the manifest declares);
 * a namespace missing from the record reaches nothing.
 */
export type HostPolicy =
  | ((namespace: string, host: string) => boolean)
  | Readonly<Record<string, readonly string[]>>;

export interface EgressPolicy {
  /** Default: every host the grant's egress rules declare. */
  hosts?: HostPolicy;
  /**
   * Loopback/private/link-local targets the operator allows explicitly: an address
   * (`127.0.0.1`, `::1`), a CIDR (`10.0.0.0/8`, `fd00::/8`) or a host name (`db.internal`, which
   * may then resolve to any refused-by-default unicast address). Cloud metadata addresses are
   * allowed only by their exact address; unspecified, broadcast and multicast never.
   */
  allowPrivate?: readonly string[];
}
