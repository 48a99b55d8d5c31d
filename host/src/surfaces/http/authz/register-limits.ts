// The limits on dynamic client registration (POST /oauth/register): a per-source-address token
// bucket, and the cap on registered clients (AuthzConfig.maxClients), both checked before a
// client is stored.
// Invariants: an address starts with `burst` registrations and gets one back every `refillMs`,
// never more than `burst`; the buckets are this process's (each replica counts its own) and at
// most MAX_TRACKED_ADDRESSES are kept — past that, full buckets are forgotten first, then the
// least recently used; every refusal is audited with its AIRLOCK_AUTHZ_* code and the address, never a body.
// Behind a proxy every request comes from the proxy's address, so its clients share one bucket.
import type { Context } from "hono";
import type { AirlockHost } from "../../../contracts/host.ts";
import { type AuthzConfig, authzAudit } from "./config.ts";
import { authzError } from "./errors.ts";

export const MAX_TRACKED_ADDRESSES = 10_000;

interface Bucket {
  tokens: number;
  at: number;
}

export class RegistrationBuckets {
  readonly #buckets = new Map<string, Bucket>();
  readonly #burst: number;
  readonly #refillMs: number;

  constructor(burst: number, refillMs: number) {
    this.#burst = burst;
    this.#refillMs = refillMs;
  }

  /** Takes one registration from the address's bucket; false when it is empty. */
  take(address: string, now: number): boolean {
    const bucket = this.#refilled(address, now);
    this.#buckets.delete(address);
    this.#buckets.set(address, bucket); // Map order: least recently used first
    if (bucket.tokens < 1) return false;
    bucket.tokens -= 1;
    this.#evict(now);
    return true;
  }

  get size(): number {
    return this.#buckets.size;
  }

  #refilled(address: string, now: number): Bucket {
    const bucket = this.#buckets.get(address) ?? { tokens: this.#burst, at: now };
    const earned = Math.floor((now - bucket.at) / this.#refillMs);
    if (earned > 0) {
      bucket.tokens = Math.min(this.#burst, bucket.tokens + earned);
      bucket.at = bucket.tokens === this.#burst ? now : bucket.at + earned * this.#refillMs;
    }
    return bucket;
  }

  #evict(now: number): void {
    if (this.#buckets.size <= MAX_TRACKED_ADDRESSES) return;
    for (const [address] of this.#buckets) {
      if (this.#refilled(address, now).tokens >= this.#burst) this.#buckets.delete(address);
    }
    // Down to nine tenths, so a full map is swept once per thousand new addresses, not each time.
    for (const [address] of this.#buckets) {
      if (this.#buckets.size <= MAX_TRACKED_ADDRESSES * 0.9) break;
      this.#buckets.delete(address);
    }
  }
}

/** The request's source address (the socket's peer; "unknown" when there is no socket). */
export function sourceAddress(c: Context): string {
  const env = c.env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined;
  return env?.incoming?.socket?.remoteAddress ?? "unknown";
}

/** Refuses a registration past the address's rate or past the client cap (audited); else returns. */
export async function checkRegistrationLimits(
  host: AirlockHost,
  config: AuthzConfig,
  buckets: RegistrationBuckets,
  address: string,
): Promise<void> {
  if (!buckets.take(address, Date.now())) {
    await authzAudit(host, "register", "AIRLOCK_AUTHZ_REGISTRATION_RATE_LIMITED", null, { address });
    const every = Math.ceil(config.registerRefillMs / 1000);
    throw authzError(
      "AIRLOCK_AUTHZ_REGISTRATION_RATE_LIMITED",
      `too many registrations from this address: ${config.registerBurst} at once, then one every ${every} s; try again later`,
    );
  }
  if ((await host.authorization.countClients()) >= config.maxClients) {
    await authzAudit(host, "register", "AIRLOCK_AUTHZ_TOO_MANY_CLIENTS", null, { address });
    throw authzError(
      "AIRLOCK_AUTHZ_TOO_MANY_CLIENTS",
      `this host has registered its maximum of ${config.maxClients} clients (AIRLOCK_AUTHZ_MAX_CLIENTS)`,
    );
  }
}
