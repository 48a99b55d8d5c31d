// Types of the egress gate: the operator's policy, the limits, the dependencies of
// createFetchCapability, and the plain-data result `fetch.request` returns across the bridge.
// Invariants: the policy only narrows what a grant's egress rules declare, never widens it;
// loopback/private targets are reachable only through an explicit `allowPrivate` entry.

import type { EgressPolicy, HostPolicy, ResolvedAddress, Resolver } from "../../contracts/config.ts";
import type { AuditInput } from "../../state/store/types.ts";
import type { CallGrant } from "../bridge/types.ts";

export type { EgressPolicy, HostPolicy, ResolvedAddress, Resolver };

export interface FetchLimits {
  /** The whole exchange (all hops and the body); a request's own timeoutMs may only lower it. */
  timeoutMs: number;
  /** Establishing one TCP (and TLS) connection. */
  connectTimeoutMs: number;
  maxResponseBytes: number;
  maxRedirects: number;
  maxRequestBytes: number;
}

export const DEFAULT_FETCH_LIMITS: Readonly<FetchLimits> = Object.freeze({
  timeoutMs: 30_000,
  connectTimeoutMs: 10_000,
  maxResponseBytes: 8 * 1024 * 1024,
  maxRedirects: 5,
  maxRequestBytes: 1024 * 1024,
});

export interface SecretSource {
  get(agent: string, key: string): Promise<string | undefined>;
}

export interface FetchCapabilityOptions {
  secrets: SecretSource;
  policy: EgressPolicy;
  /** Default: `dns.lookup(name, {all: true, order: "verbatim"})`. */
  resolver?: Resolver;
  audit: (entry: AuditInput) => Promise<void>;
  limits?: Partial<FetchLimits>;
  /**
   * Extra trust for https: PEM certificate authorities that REPLACE Node's bundled roots (a
   * private CA, or a test CA). Certificates are always verified against the URL's host name.
   */
  tls?: { ca?: string | readonly string[] };
  /** The OAuth broker's bearer for init.oauth (host/src/engine/oauth/); without it init.oauth is refused. */
  bearer?: (grant: CallGrant, provider: string) => Promise<string | undefined>;
}

/** What `fetch.request` returns: plain data only. Multi-valued headers are joined with ", ". */
export interface FetchResult {
  status: number;
  statusText: string;
  headers: Record<string, string>;
  url: string;
  redirected: boolean;
  body: Uint8Array;
}
