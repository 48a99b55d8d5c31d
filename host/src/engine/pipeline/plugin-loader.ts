// Loads installed plugin versions into the sandbox on first use: reads `<path>/index.js`,
// checks its sha512 against manifest.bundle.integrity, then `sandbox.load`.
// Invariants: a bundle whose bytes do not match is never handed to the sandbox
// (AIRLOCK_PLUGIN_INTEGRITY_MISMATCH); concurrent first calls share one load; a failed load
// is forgotten so a later call retries it.
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { AirlockError } from "@airlock/sdk";
import { BUNDLE_FILE } from "@airlock/sdk/manifest";
import { integrityOf } from "@airlock/sdk/signing";
import type { EffectiveLimits, Sandbox } from "../../isolation/sandbox/types.ts";
import type { InstalledPluginRecord } from "../../state/store/types.ts";
import type { PluginLoader } from "./deps.ts";
import { PIPELINE_ERRORS } from "./errors.ts";

export interface PluginLoaderOptions {
  sandbox: Sandbox;
  limitsFor(plugin: InstalledPluginRecord): EffectiveLimits;
  /** Where this process finds a version's files (replicas rebuild them from the store); default `plugin.path`. */
  locate?: (plugin: InstalledPluginRecord) => Promise<string>;
  /** Directory for V8 code caches, one file per plugin version; none when absent. */
  codeCacheDir?: string;
  /** The host key (base64, ≥ 32 bytes) those files are authenticated with; no files without it. */
  codeCacheKey?: string;
  /** Whether a namespace runs in a sandbox worker of its own (its trust tier); default: never said. */
  ownWorker?: (namespace: string) => boolean;
}

export const pluginKey = (plugin: { namespace: string; version: string }): string =>
  `${plugin.namespace}@${plugin.version}`;

export function createPluginLoader(options: PluginLoaderOptions): PluginLoader {
  const loads = new Map<string, Promise<string>>();
  /** The record each loaded key was loaded from (for reload). */
  const records = new Map<string, InstalledPluginRecord>();
  // Limits depend only on the (immutable) installed record: resolved once per record object.
  const limits = new WeakMap<InstalledPluginRecord, EffectiveLimits>();

  async function load(plugin: InstalledPluginRecord): Promise<string> {
    const key = pluginKey(plugin);
    const dir = options.locate === undefined ? plugin.path : await options.locate(plugin);
    let bytes: Buffer;
    try {
      bytes = await readFile(join(dir, BUNDLE_FILE));
    } catch (error) {
      throw new AirlockError("AIRLOCK_PLUGIN_BUNDLE_UNREADABLE", `cannot read the bundle of ${key}`, {
        status: PIPELINE_ERRORS.AIRLOCK_PLUGIN_BUNDLE_UNREADABLE.status,
        cause: error,
      });
    }
    if (integrityOf(bytes) !== plugin.manifest.bundle.integrity) {
      throw new AirlockError(
        "AIRLOCK_PLUGIN_INTEGRITY_MISMATCH",
        `the installed bundle of ${key} does not match its manifest's integrity; reinstall the plugin`,
        { status: PIPELINE_ERRORS.AIRLOCK_PLUGIN_INTEGRITY_MISMATCH.status },
      );
    }
    await options.sandbox.load({
      key,
      manifest: plugin.manifest,
      code: bytes.toString("utf8"),
      limits: options.limitsFor(plugin),
      ...(options.codeCacheDir === undefined
        ? {}
        : { codeCachePath: join(options.codeCacheDir, `${key}.cache`) }),
      ...(options.codeCacheKey === undefined ? {} : { codeCacheKey: options.codeCacheKey }),
      ...(options.ownWorker === undefined ? {} : { ownWorker: options.ownWorker(plugin.namespace) }),
    });
    return key;
  }

  return {
    async reload(namespace) {
      for (const [key, record] of [...records]) {
        if (record.namespace !== namespace) continue;
        const loaded = await loads.get(key)?.then(
          () => true,
          () => false,
        );
        if (loaded !== true || records.get(key) !== record) continue;
        const pending = load(record);
        loads.set(key, pending);
        await pending;
      }
    },
    limitsFor(plugin) {
      let resolved = limits.get(plugin);
      if (resolved === undefined) {
        resolved = Object.freeze(options.limitsFor(plugin));
        limits.set(plugin, resolved);
      }
      return resolved;
    },
    ensure(plugin) {
      const key = pluginKey(plugin);
      let pending = loads.get(key);
      if (pending === undefined) {
        pending = load(plugin);
        loads.set(key, pending);
        records.set(key, plugin);
        pending.catch(() => {
          loads.delete(key);
          records.delete(key);
        });
      }
      return pending;
    },
    async retain(keep) {
      for (const key of [...loads.keys()]) {
        if (keep.has(key)) continue;
        const pending = loads.get(key);
        loads.delete(key);
        records.delete(key);
        const loaded = await pending?.then(
          () => true,
          () => false,
        );
        if (loaded === true) await options.sandbox.unload(key);
      }
    },
  };
}
