// Conformance tests of the artifact half of the Store: binding, once-only take, expiry,
// sweeping and the three kinds of caps. Registered by storeConformance (./conformance.ts).
import { expect, it } from "vitest";
import type { ArtifactCaps, ArtifactRecord, Store } from "./types.ts";

const NOW = 1_800_000_000_000;

export const roomyCaps: ArtifactCaps = {
  maxBytesPerArtifact: 1000,
  maxCountPerBinding: 100,
  maxBytesPerBinding: 10_000,
  maxCountGlobal: 1000,
  maxBytesGlobal: 100_000,
};

export function artifact(handle: string, over: Partial<ArtifactRecord> = {}): ArtifactRecord {
  return {
    handle,
    agent: "a",
    conversationId: "c",
    filename: `${handle}.bin`,
    mime: "application/octet-stream",
    bytes: new Uint8Array([0, 1, 2, 255, 0]),
    expiresAt: NOW + 60_000,
    ...over,
  };
}

export function artifactConformance(s: () => Store): void {
  it("returns an artifact's exact bytes once, then null", async () => {
    const bytes = new Uint8Array(256).map((_, i) => i);
    expect(await s().putArtifact(artifact("h1", { bytes }), roomyCaps, NOW)).toEqual({ ok: true });
    const got = await s().takeArtifact("h1", "a", "c", NOW);
    expect(got).toMatchObject({ handle: "h1", filename: "h1.bin", mime: "application/octet-stream" });
    expect(got!.bytes).toBeInstanceOf(Uint8Array);
    expect([...got!.bytes]).toEqual([...bytes]);
    expect(await s().takeArtifact("h1", "a", "c", NOW)).toBeNull();
  });

  it("does not consume an artifact taken from the wrong agent or conversation", async () => {
    await s().putArtifact(artifact("h2"), roomyCaps, NOW);
    expect(await s().takeArtifact("h2", "b", "c", NOW)).toBeNull();
    expect(await s().takeArtifact("h2", "a", "other", NOW)).toBeNull();
    expect(await s().takeArtifact("h2", "a", "c", NOW)).not.toBeNull();
  });

  it("answers null for an expired artifact and sweeps only expired ones", async () => {
    await s().putArtifact(artifact("old", { expiresAt: NOW + 10 }), roomyCaps, NOW);
    await s().putArtifact(artifact("new", { expiresAt: NOW + 10_000 }), roomyCaps, NOW);
    expect(await s().takeArtifact("old", "a", "c", NOW + 10)).toBeNull();
    expect(await s().sweepArtifacts(NOW + 100)).toBe(1);
    expect(await s().sweepArtifacts(NOW + 100)).toBe(0);
    expect(await s().takeArtifact("new", "a", "c", NOW + 100)).not.toBeNull();
  });

  it("hands an artifact to exactly one of many racing takers", async () => {
    await s().putArtifact(artifact("race"), roomyCaps, NOW);
    const got = await Promise.all(Array.from({ length: 8 }, () => s().takeArtifact("race", "a", "c", NOW)));
    expect(got.filter((g) => g !== null)).toHaveLength(1);
  });

  it("refuses an artifact over the per-artifact size cap as too_large", async () => {
    const caps = { ...roomyCaps, maxBytesPerArtifact: 4 };
    expect(await s().putArtifact(artifact("big"), caps, NOW)).toEqual({ ok: false, reason: "too_large" });
    expect(await s().takeArtifact("big", "a", "c", NOW)).toBeNull();
  });

  it("refuses a put over the per-binding count or bytes as binding_full, other bindings unaffected", async () => {
    const caps = { ...roomyCaps, maxCountPerBinding: 2, maxBytesPerBinding: 12 };
    expect(await s().putArtifact(artifact("b1"), caps, NOW)).toEqual({ ok: true });
    expect(await s().putArtifact(artifact("b2"), caps, NOW)).toEqual({ ok: true });
    expect(await s().putArtifact(artifact("b3"), caps, NOW)).toEqual({ ok: false, reason: "binding_full" });
    expect(
      await s().putArtifact(artifact("b4", { conversationId: "c2", bytes: new Uint8Array(13) }), caps, NOW),
    ).toEqual({
      ok: false,
      reason: "binding_full",
    });
    expect(await s().putArtifact(artifact("b5", { conversationId: "c2" }), caps, NOW)).toEqual({ ok: true });
  });

  it("refuses a put over the global caps as global_full, and expired artifacts do not count", async () => {
    const caps = { ...roomyCaps, maxCountGlobal: 2 };
    await s().putArtifact(artifact("g1", { agent: "x", expiresAt: NOW + 5 }), caps, NOW);
    await s().putArtifact(artifact("g2", { agent: "y" }), caps, NOW);
    expect(await s().putArtifact(artifact("g3", { agent: "z" }), caps, NOW)).toEqual({
      ok: false,
      reason: "global_full",
    });
    expect(await s().putArtifact(artifact("g3", { agent: "z" }), caps, NOW + 5)).toEqual({ ok: true });
  });

  it("never exceeds a binding's count cap when puts race", async () => {
    const caps = { ...roomyCaps, maxCountPerBinding: 3 };
    const out = await Promise.all(
      Array.from({ length: 10 }, (_, i) => s().putArtifact(artifact(`r${i}`), caps, NOW)),
    );
    expect(out.filter((o) => o.ok)).toHaveLength(3);
  });
}
