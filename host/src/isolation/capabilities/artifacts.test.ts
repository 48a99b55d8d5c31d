import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { openStore } from "../../state/store/index.ts";
import type { Store } from "../../state/store/types.ts";
import { isDenied } from "../bridge/denials.ts";
import type { CallGrant } from "../bridge/types.ts";
import { createArtifactsCapability, DEFAULT_ARTIFACT_LIMITS, startArtifactSweeper } from "./artifacts.ts";

const grant = (agent: string, conversationId: string) =>
  ({
    agent,
    conversationId,
    namespace: "render",
    tool: "chart",
    toolId: "render:chart",
  }) as unknown as CallGrant;

let dir: string;
let store: Store;
let clock: number;
beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), "airlock-artifacts-"));
  store = await openStore({ kind: "sqlite", dataDir: dir });
  clock = 1_800_000_000_000;
});
afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const cap = (limits = {}) => createArtifactsCapability({ store, limits, now: () => clock });
/** What the handler answers, as the bridge hands it to the plugin (a soft denial's value). */
const raw = (c: ReturnType<typeof cap>, m: string, g: CallGrant, ...args: unknown[]) =>
  c.methods[m]!(g, args);
const call = async (c: ReturnType<typeof cap>, m: string, g: CallGrant, ...args: unknown[]) => {
  const answer = await raw(c, m, g, ...args);
  return isDenied(answer) ? answer.value : answer;
};

describe("artifacts capability", () => {
  it("hands the bytes to a take in the same conversation once, then null", async () => {
    const c = cap();
    const g = grant("a", "c1");
    const handle = await call(c, "put", g, {
      buffer: new Uint8Array([9, 8, 7]),
      filename: "x.png",
      mime: "image/png",
    });
    expect(handle).toMatch(/^art_/);
    const got = (await call(c, "take", g, handle)) as { buffer: Uint8Array; filename: string; mime: string };
    expect({ ...got, buffer: [...got.buffer] }).toEqual({
      buffer: [9, 8, 7],
      filename: "x.png",
      mime: "image/png",
    });
    expect(await call(c, "take", g, handle)).toBeNull();
  });

  it("answers null to another conversation or agent without consuming the artifact", async () => {
    const c = cap();
    const handle = await call(c, "put", grant("a", "c1"), {
      buffer: "hi",
      filename: "x.txt",
      mime: "text/plain",
    });
    expect(await call(c, "take", grant("a", "c2"), handle)).toBeNull();
    expect(await call(c, "take", grant("b", "c1"), handle)).toBeNull();
    expect(await call(c, "take", grant("a", "c1"), handle)).not.toBeNull();
  });

  it("answers null, the same way, for unknown, malformed and expired handles", async () => {
    const c = cap();
    const g = grant("a", "c1");
    const handle = await call(c, "put", g, { buffer: "x", filename: "x.txt", mime: "text/plain" }, 1000);
    const reasons: string[] = [];
    for (const h of ["art_AAAAAAAAAAAAAAAAAAAAAAAA", 42, null, { handle }, "x".repeat(10_000)]) {
      const answer = await raw(c, "take", g, h);
      expect(isDenied(answer) && answer.value === null && answer.code).toBe("AIRLOCK_ARTIFACT_UNAVAILABLE");
      if (isDenied(answer)) reasons.push(answer.reason);
    }
    expect(reasons).toEqual(["unavailable", "malformed", "malformed", "malformed", "malformed"]);
    clock += 1000;
    expect(await call(c, "take", g, handle)).toBeNull();
  });

  it("applies the default TTL and caps a longer one at the host maximum", async () => {
    const c = cap();
    const g = grant("a", "c1");
    const h1 = await call(c, "put", g, { buffer: "x", filename: "x.txt", mime: "text/plain" });
    const h2 = await call(c, "put", g, { buffer: "x", filename: "x.txt", mime: "text/plain" }, 24 * 3600_000);
    clock += DEFAULT_ARTIFACT_LIMITS.defaultTtlMs - 1;
    expect(await call(c, "take", g, h1)).not.toBeNull();
    clock += DEFAULT_ARTIFACT_LIMITS.maxTtlMs - DEFAULT_ARTIFACT_LIMITS.defaultTtlMs + 1;
    expect(await call(c, "take", g, h2)).toBeNull();
  });

  it("refuses an artifact over the size cap with AIRLOCK_ARTIFACT_TOO_LARGE and stores nothing", async () => {
    const c = cap({ maxBytesPerArtifact: 4 });
    const g = grant("a", "c1");
    await expect(
      call(c, "put", g, { buffer: new Uint8Array(5), filename: "x", mime: "a/b" }),
    ).rejects.toMatchObject({
      code: "AIRLOCK_ARTIFACT_TOO_LARGE",
    });
    expect(await store.sweepArtifacts(Number.MAX_SAFE_INTEGER)).toBe(0);
  });

  it("refuses a put past the per-conversation or global count with AIRLOCK_ARTIFACT_LIMIT", async () => {
    const c = cap({ maxCountPerBinding: 1, maxCountGlobal: 2 });
    const put = (g: CallGrant) => call(c, "put", g, { buffer: "x", filename: "x", mime: "a/b" });
    await put(grant("a", "c1"));
    await expect(put(grant("a", "c1"))).rejects.toMatchObject({ code: "AIRLOCK_ARTIFACT_LIMIT" });
    await put(grant("a", "c2"));
    await expect(put(grant("b", "c3"))).rejects.toMatchObject({ code: "AIRLOCK_ARTIFACT_LIMIT" });
  });

  it("refuses malformed artifacts with AIRLOCK_ARTIFACT_INVALID", async () => {
    const c = cap();
    const g = grant("a", "c1");
    for (const bad of [
      null,
      { buffer: 5, filename: "x", mime: "a/b" },
      { buffer: "x", filename: "", mime: "a/b" },
      { buffer: "x", filename: "../etc/passwd", mime: "a/b" },
      { buffer: "x", filename: "x", mime: "not a mime" },
    ]) {
      await expect(call(c, "put", g, bad)).rejects.toMatchObject({ code: "AIRLOCK_ARTIFACT_INVALID" });
    }
    await expect(call(c, "put", g, { buffer: "x", filename: "x", mime: "a/b" }, -5)).rejects.toMatchObject({
      code: "AIRLOCK_ARTIFACT_INVALID",
    });
  });

  it("sweeps expired artifacts on its interval until stopped", async () => {
    vi.useFakeTimers({ toFake: ["setInterval", "clearInterval"] });
    try {
      const c = cap();
      const g = grant("a", "c1");
      await call(c, "put", g, { buffer: "x", filename: "x", mime: "a/b" }, 1000);
      await call(c, "put", g, { buffer: "y", filename: "y", mime: "a/b" }, 5000);
      clock += 2000;
      const errors: unknown[] = [];
      const stop = startArtifactSweeper({
        store,
        intervalMs: 100,
        now: () => clock,
        onError: (e) => errors.push(e),
      });
      await vi.advanceTimersByTimeAsync(100);
      expect(await store.sweepArtifacts(clock)).toBe(0);
      stop();
      clock += 10_000;
      await vi.advanceTimersByTimeAsync(1000);
      expect(await store.sweepArtifacts(clock)).toBe(1);
      expect(errors).toEqual([]);
    } finally {
      vi.useRealTimers();
    }
  });
});
