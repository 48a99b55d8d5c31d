import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openStore } from "../store/index.ts";
import type { Store } from "../store/types.ts";
import { cacheTokenLookups } from "./token-cache.ts";
import { authenticate, hashToken, issueToken } from "./tokens.ts";

let dir: string;
let store: Store;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "airlock-token-cache-"));
  store = await openStore({ kind: "sqlite", dataDir: dir });
  await store.ensureAgent("ada");
});
afterEach(async () => {
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

/** The store, counting the lookups that reach it. */
function counting(inner: Store): { store: Store; lookups: () => number } {
  let n = 0;
  const counted: Store = Object.create(inner) as Store;
  Object.defineProperty(counted, "findToken", {
    value: (hash: string) => {
      n++;
      return inner.findToken(hash);
    },
  });
  return { store: counted, lookups: () => n };
}

describe("cached token lookups", () => {
  it("answers a found token from memory, and looks an unknown one up every time", async () => {
    const inner = counting(store);
    const cache = cacheTokenLookups(inner.store);
    const { token, id } = await issueToken(cache.store, { role: "agent", agent: "ada" });
    expect((await authenticate(cache.store, token))?.id).toBe(id);
    expect((await authenticate(cache.store, token))?.id).toBe(id);
    expect(inner.lookups()).toBe(1);
    const unknown = `alk_ag_${"x".repeat(43)}`;
    expect(await authenticate(cache.store, unknown)).toBeNull();
    expect(await authenticate(cache.store, unknown)).toBeNull();
    expect(inner.lookups()).toBe(3);
  });

  it("a token revoked through it is refused from the next lookup on, and the others are told", async () => {
    let told = 0;
    const cache = cacheTokenLookups(store, { onRevoke: () => told++ });
    const { token, id } = await issueToken(cache.store, { role: "agent", agent: "ada" });
    expect(await authenticate(cache.store, token)).not.toBeNull();
    await cache.store.deleteToken(id);
    expect(await authenticate(cache.store, token)).toBeNull();
    expect(told).toBe(1);
  });

  it("an agent deleted with its tokens empties the cache", async () => {
    const cache = cacheTokenLookups(store);
    const { token } = await issueToken(cache.store, { role: "agent", agent: "ada" });
    expect(await authenticate(cache.store, token)).not.toBeNull();
    await cache.store.deleteAgent("ada");
    expect(await authenticate(cache.store, token)).toBeNull();
  });

  it("a revocation another replica announces (forgetAll) or one past the age bound is seen", async () => {
    const cache = cacheTokenLookups(store, { maxAgeMs: 60_000 });
    const { token, id } = await issueToken(store, { role: "agent", agent: "ada" });
    expect(await authenticate(cache.store, token)).not.toBeNull();
    await store.deleteToken(id); // behind the cache's back: another replica
    expect(await authenticate(cache.store, token)).not.toBeNull(); // until it is told
    cache.forgetAll();
    expect(await authenticate(cache.store, token)).toBeNull();

    const aged = cacheTokenLookups(store, { maxAgeMs: 0 });
    const other = await issueToken(store, { role: "agent", agent: "ada" });
    expect(await authenticate(aged.store, other.token)).not.toBeNull();
    await store.deleteToken(other.id);
    expect(await authenticate(aged.store, other.token)).toBeNull();
  });

  it("keeps at most `max` tokens, keyed by hash", async () => {
    const inner = counting(store);
    const cache = cacheTokenLookups(inner.store, { max: 2 });
    const issued = await Promise.all([1, 2, 3].map(() => issueToken(store, { role: "operator" })));
    for (const { token } of issued) await authenticate(cache.store, token);
    expect(inner.lookups()).toBe(3);
    await authenticate(cache.store, issued[0]!.token); // the oldest was dropped
    expect(inner.lookups()).toBe(4);
    await authenticate(cache.store, issued[2]!.token);
    expect(inner.lookups()).toBe(4);
    expect(hashToken(issued[0]!.token)).toMatch(/^[0-9a-f]{64}$/);
  });
});
