// Hostile, through the real host: the V8 code cache a host keeps on disk under its data dir
// (`<dataDir>/code-cache/`, workers sandbox, the master key from the data dir as in production).
// V8 trusts cached data it accepts, so a file that does not verify under the host key — bytes
// flipped by someone with write access to the data dir, or a cache forged under another key —
// must be discarded and reported, never loaded: the next host start serves the tool from source
// and writes a fresh cache that verifies. The host key is derived from the master key (it is
// neither the master key nor anything plugin code can reach); the canary secret leaks nowhere.
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { AirlockHost } from "../../host/src/contracts/host.ts";
import { createHost } from "../../host/src/host.ts";
import { readCodeCache, writeCodeCache } from "../../host/src/isolation/sandbox/code-cache.ts";
import { openVault } from "../../host/src/state/secrets/index.ts";
import { loadMasterKey } from "../../host/src/state/secrets/master-key.ts";
import { testStore } from "../../host/src/state/store/test-store.ts";
import { kitTarball } from "../../host/src/surfaces/http/test-support.ts";
import { CANARY, waitFor } from "../support/sandbox-hostile.ts";

const dataDir = mkdtempSync(join(tmpdir(), "airlock-host-cc-"));
const cacheFile = join(dataDir, "code-cache", "kit@1.0.0.cache");
const logs: string[] = [];
let host: AirlockHost | undefined;
afterAll(async () => {
  await host?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

async function start(): Promise<AirlockHost> {
  host = await createHost({
    dataDir,
    store: testStore(dataDir),
    sandbox: { mode: "workers", workers: 1 },
    onInternalError: (what, error) =>
      logs.push(`${what}: ${error instanceof Error ? error.message : String(error)}`),
  });
  return host;
}

async function stop(): Promise<void> {
  await host?.close();
  host = undefined;
}

/** The kit's integrity as the cache header names it, and the derived host key. */
function cacheKeys(): { integrity: string; hostKey: Buffer; masterKey: Buffer } {
  const manifest = JSON.parse(readFileSync(join(dataDir, "plugins", "kit", "1.0.0", "airlock.json"), "utf8"));
  return {
    integrity: manifest.bundle.integrity,
    hostKey: openVault({ dataDir, env: {} }).deriveKey("code-cache"),
    masterKey: loadMasterKey({ dataDir, env: {} }).key,
  };
}

const echo = async (h: AirlockHost, text: string) => {
  const outcome = await h.callTool("alpha", "kit__echo", { text });
  return outcome.result.content;
};

/** Every output the host produced, for the leak check. */
const everything = async (h: AirlockHost) => JSON.stringify({ logs, audit: await h.queryAudit({}) });

describe("the host's on-disk V8 code cache (workers, real host)", () => {
  it("writes a cache under the data dir, authenticated by a key derived from the master key", async () => {
    const h = await start();
    await h.plugins.installTarball(kitTarball(), "file:kit.tgz", { allowUnsigned: true });
    await h.createAgent("alpha");
    await h.setToolsEnabled("alpha", { "kit:echo": true, "kit:keyed": true });
    await h.setSecrets("alpha", { api_key: CANARY });
    expect(await echo(h, "first")).toEqual([{ type: "text", text: "echo: first" }]);
    expect((await h.callTool("alpha", "kit__keyed", {})).result.content).toEqual([
      { type: "text", text: "has key" },
    ]);
    await waitFor(() => existsSync(cacheFile));
    const { integrity, hostKey, masterKey } = cacheKeys();
    expect(readCodeCache(cacheFile, integrity, hostKey)).toHaveProperty("bytes");
    // not the master key itself: a file MAC'd with it does not verify
    expect(readCodeCache(cacheFile, integrity, masterKey)).toEqual({ rejected: true });
    expect(readFileSync(cacheFile).includes(CANARY)).toBe(false);
    await stop();
  });

  it.each([
    [
      "its cached bytes flipped",
      (file: Buffer) => {
        file[file.length - 8] = (file[file.length - 8] ?? 0) ^ 0xff;
        return file;
      },
    ],
    [
      "a cache forged under another key",
      (file: Buffer, integrity: string) => {
        const headerEnd = file.indexOf(0x0a) + 1;
        const forged = join(dataDir, "forged.tmp");
        writeCodeCache(forged, integrity, file.subarray(headerEnd), randomBytes(32));
        const bytes = readFileSync(forged);
        rmSync(forged);
        return bytes;
      },
    ],
  ])(
    "discards %s at the next start, serves from source and writes a cache that verifies",
    async (_name, tamper) => {
      const { integrity, hostKey } = cacheKeys();
      const bad = tamper(readFileSync(cacheFile), integrity);
      writeFileSync(cacheFile, bad);
      expect(readCodeCache(cacheFile, integrity, hostKey)).toEqual({ rejected: true });
      logs.length = 0;
      const h = await start();
      expect(await echo(h, "again")).toEqual([{ type: "text", text: "echo: again" }]);
      expect(logs.some((l) => l.includes("failed authentication and was discarded"))).toBe(true);
      await waitFor(() => existsSync(cacheFile) && "bytes" in readCodeCache(cacheFile, integrity, hostKey));
      expect(readFileSync(cacheFile).equals(bad)).toBe(false);
      // healthy: the next call is served, and the canary appears in no log or audit row
      expect(await echo(h, "healthy")).toEqual([{ type: "text", text: "echo: healthy" }]);
      expect(await everything(h)).not.toContain(CANARY);
      await stop();
    },
  );
});
