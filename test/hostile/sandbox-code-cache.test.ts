// Hostile: a tampered or forged V8 code cache file. V8 trusts cached data it accepts, so a cache
// file is authenticated with a MAC (GMAC) under the host key; one that does not verify (bytes flipped,
// a MAC made with another key, a cache planted by someone without the key) is discarded and
// reported, never handed to V8; the plugin loads from source, serves its calls, and a fresh,
// verifying cache replaces the bad one. Both sandbox modes; the canary secret leaks nowhere.
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readCodeCache, writeCodeCache } from "../../host/src/isolation/sandbox/code-cache.ts";
import type { SandboxPlugin } from "../../host/src/isolation/sandbox/types.ts";
import { fixtureBundle, makePlugin } from "../support/sandbox-fixtures.ts";
import type { Harness } from "../support/sandbox-harness.ts";
import { MODES } from "../support/sandbox-harness.ts";
import { expectContained, hostileSetup, waitFor } from "../support/sandbox-hostile.ts";

const KEY = randomBytes(32);

describe.each(MODES)("tampered code cache files (%s)", (mode) => {
  let h: Harness;
  let hostile: SandboxPlugin;
  let dir: string;
  let path: string;
  let cached: SandboxPlugin;
  beforeAll(async () => {
    ({ h, plugin: hostile } = await hostileSetup(mode));
    dir = mkdtempSync(join(tmpdir(), "airlock-cc-hostile-"));
    path = join(dir, "cached.v8");
    cached = makePlugin({
      namespace: "cached",
      code: fixtureBundle("basic"),
      tools: ["echo"],
      codeCachePath: path,
      codeCacheKey: KEY.toString("base64"),
    });
  });
  afterAll(async () => {
    await h.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /**
   * Unloads the plugin first, which waits for the cache the last call is warming to be written
   * (plugin-runtime.ts), so `plant` overwrites a settled file and no late write replaces it.
   */
  async function plantAndExpectDiscarded(plant: () => void): Promise<void> {
    await h.sandbox.unload(cached.key).catch(() => undefined);
    const before = h.logs.length;
    plant();
    await h.sandbox.load(cached);
    await waitFor(() =>
      h.logs.slice(before).some((l) => l.includes("failed authentication and was discarded")),
    );
    // the bad file is gone; a fresh compile wrote a verifying one in its place
    expect(existsSync(path)).toBe(true);
    expect("bytes" in readCodeCache(path, cached.manifest.bundle.integrity, KEY)).toBe(true);
    expect((await h.call(cached, "echo", { ok: 1 })).structuredContent).toEqual({ echoed: { ok: 1 } });
    await expectContained(h, hostile);
  }

  it("writes a cache that verifies under the host key", async () => {
    await h.sandbox.load(cached);
    expect("bytes" in readCodeCache(path, cached.manifest.bundle.integrity, KEY)).toBe(true);
    const inode = statSync(path).ino;
    await h.sandbox.unload(cached.key);
    await h.sandbox.load(cached);
    expect(statSync(path).ino).toBe(inode); // accepted, not rewritten
    await expectContained(h, hostile);
  });

  it("discards a cache whose bytes were flipped", async () => {
    await plantAndExpectDiscarded(() => {
      const file = Buffer.from(readFileSync(path));
      file[file.length - 10] = (file[file.length - 10] as number) ^ 0xff;
      writeFileSync(path, file);
    });
  });

  it("discards a cache planted with a MAC under another key", async () => {
    await plantAndExpectDiscarded(() => {
      const good = readCodeCache(path, cached.manifest.bundle.integrity, KEY);
      if (!("bytes" in good)) throw new Error("expected a verifying cache to start from");
      writeCodeCache(path, cached.manifest.bundle.integrity, good.bytes, randomBytes(32));
    });
  });
});
