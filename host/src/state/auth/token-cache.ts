// The token → principal lookup, cached: every request to the admin API and the MCP endpoint
// authenticates its bearer token, and a store round trip per request is the largest part of that
// (bench row 0). `cacheTokenLookups(store)` answers `findToken` from memory for a token found
// within the last `maxAgeMs`; any token write through it (a revocation, an agent deleted with its
// tokens) empties the cache and calls `onRevoke`, which the host wires to tell the other replicas
// (a "tokens" wake-up), whose own caches are emptied when it arrives (`forgetAll`).
// Invariants: only tokens that exist are cached (an unknown token is looked up each time, so a
// flood of bad tokens grows nothing and a token issued a moment ago works at once); a token
// revoked through this process is refused from the next request on; one revoked by another
// replica, from that replica's wake-up on; one revoked by another process on the same SQLite
// file (the CLI with the data dir), at most `maxAgeMs` later; the cache is keyed by the token's
// hash, as the store is, so no clear token is kept; it holds at most `max` entries.
import type { Store, TokenRecord } from "../store/types.ts";

/** How long a found token is answered from memory: the bound on a revocation no wake-up announces. */
export const TOKEN_CACHE_MAX_AGE_MS = 1000;
/** Entries kept at most (the oldest found is dropped first). */
export const TOKEN_CACHE_MAX = 10_000;

const TOKEN_WRITES = ["deleteToken", "deleteAgent"] as const satisfies readonly (keyof Store)[];

export interface TokenCache {
  /** The store whose `findToken` is cached and whose token writes empty the cache. */
  readonly store: Store;
  /** Empties the cache (another replica revoked a token, or the cluster resynced). */
  forgetAll(): void;
}

export function cacheTokenLookups(
  store: Store,
  options: { onRevoke?: () => void; maxAgeMs?: number; max?: number } = {},
): TokenCache {
  const maxAgeMs = options.maxAgeMs ?? TOKEN_CACHE_MAX_AGE_MS;
  const max = options.max ?? TOKEN_CACHE_MAX;
  const found = new Map<string, { at: number; record: TokenRecord }>();
  // A write bumps the generation: a lookup that started before it does not cache its answer.
  let generation = 0;
  const forgetAll = () => {
    generation++;
    found.clear();
  };
  const cached: Store = Object.create(store) as Store;
  Object.defineProperty(cached, "findToken", {
    value: async (hash: string): Promise<TokenRecord | null> => {
      const now = performance.now();
      const hit = found.get(hash);
      if (hit !== undefined && now - hit.at < maxAgeMs) return hit.record;
      const before = generation;
      const record = await store.findToken(hash);
      found.delete(hash);
      if (record !== null && before === generation) {
        found.set(hash, { at: now, record });
        if (found.size > max) found.delete(found.keys().next().value as string);
      }
      return record;
    },
  });
  for (const name of TOKEN_WRITES) {
    const original = store[name] as (...args: unknown[]) => Promise<unknown>;
    Object.defineProperty(cached, name, {
      value: async (...args: unknown[]) => {
        forgetAll();
        try {
          return await original.apply(store, args);
        } finally {
          forgetAll();
          options.onRevoke?.();
        }
      },
    });
  }
  return { store: cached, forgetAll };
}
