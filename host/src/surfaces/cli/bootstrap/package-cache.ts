// Builds, packs and signs a first-party plugin with the SDK's build and pack, caching the
// signed tarball under `<bootstrap dir>/cache/<name>-<source hash>.tgz` (+ `.json` with its
// manifest and signature), so a restart with unchanged sources does no build at all.
// Invariants: a cache entry is written tarball first, metadata last (atomic rename), so a
// crash mid-write leaves no entry that looks complete.
import { existsSync } from "node:fs";
import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { buildPlugin, readDist, tarballOf } from "@airlock/sdk/build";
import { hasCode } from "@airlock/sdk/errors";
import type { PluginManifest } from "@airlock/sdk/manifest";
import { type IntegritySignature, integrityOf, signIntegrity } from "@airlock/sdk/signing";
import { bootstrapError } from "./errors.ts";
import { type FirstPartyPlugin, sourceHash } from "./first-party.ts";
import type { BootstrapKey } from "./signing-key.ts";

export interface PackedPlugin {
  tarball: Uint8Array;
  manifest: PluginManifest;
  integrity: string;
  signature: IntegritySignature;
  /** Whether it came from the cache (no build ran). */
  cached: boolean;
}

interface CacheMeta {
  manifest: PluginManifest;
  integrity: string;
  signature: IntegritySignature;
}

async function buildAndRead(dir: string): ReturnType<typeof readDist> {
  await buildPlugin(dir);
  return readDist(dir);
}

export async function packFirstParty(
  plugin: FirstPartyPlugin,
  key: BootstrapKey,
  cacheDir: string,
): Promise<PackedPlugin> {
  const hash = await sourceHash(plugin);
  const base = join(cacheDir, `${plugin.name}-${hash}`);
  if (existsSync(`${base}.json`) && existsSync(`${base}.tgz`)) {
    const meta = JSON.parse(await readFile(`${base}.json`, "utf8")) as CacheMeta;
    const tarball = new Uint8Array(await readFile(`${base}.tgz`));
    if (integrityOf(tarball) === meta.integrity && meta.signature.keyid === key.keyId) {
      return { tarball, ...meta, cached: true };
    }
  }
  let tarball: Uint8Array;
  let manifest: PluginManifest;
  try {
    let dist: Awaited<ReturnType<typeof readDist>>;
    try {
      dist = await buildAndRead(plugin.dir);
    } catch (error) {
      // Another process (a test suite, a second host) rebuilt dist/ while this one read it.
      if (!hasCode(error, "AIRLOCK_SDK_NOT_BUILT")) throw error;
      dist = await buildAndRead(plugin.dir);
    }
    manifest = dist.manifest;
    tarball = new Uint8Array(await tarballOf(dist.files));
  } catch (cause) {
    throw bootstrapError("AIRLOCK_BOOTSTRAP_PLUGIN_FAILED", `building ${plugin.name} failed`, {
      cause,
      details: { plugin: plugin.name, step: "build" },
    });
  }
  const integrity = integrityOf(tarball);
  const signature = signIntegrity(integrity, key.privateKeyPem);
  await mkdir(cacheDir, { recursive: true });
  await writeFile(`${base}.tgz`, tarball);
  await writeFile(`${base}.json.tmp`, JSON.stringify({ manifest, integrity, signature } satisfies CacheMeta));
  await rename(`${base}.json.tmp`, `${base}.json`);
  return { tarball, manifest, integrity, signature, cached: false };
}
