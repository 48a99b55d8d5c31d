// `createPluginLifecycle(options)`: install, upgrade, rollback, uninstall and list, and the
// publisher keys each namespace trusts (namespace-trust.ts), as the
// PluginLifecycle of contracts/host.ts (the library API, the admin API and the CLI all call it),
// with the registry browser the console reads (registry-browser.ts).
// Invariants: the first operation first recovers from a crash (dead staging removed, version
// directories the store does not know removed, each namespace under its lock); every change
// to a namespace runs under its lock; see install-verified.ts for the install order.
// Layout: install-spec.ts resolves what to install, rollback.ts and uninstall.ts do the other
// changes; this file recovers, takes the lock and dispatches.
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import type { InstalledPluginView, PluginLifecycle, TrustedKeyView } from "../../contracts/host.ts";
import type { TrustedKeyRecord } from "../../state/store/types.ts";
import type { LifecycleContext, PluginLifecycleOptions } from "./context.ts";
import { installError } from "./errors.ts";
import { namespaceDirs, pluginDirOf, removeDeadStaging, removeOrphanVersions } from "./files.ts";
import { fileOrdering, installFromRegistry, installSpec } from "./install-spec.ts";
import { installVerified, originOfSource } from "./install-verified.ts";
import { withNamespaceLock } from "./lock.ts";
import { importRememberedKeys } from "./namespace-trust.ts";
import { toolIds } from "./records.ts";
import { createRegistryBrowser } from "./registry-browser.ts";
import { rollbackUnlocked } from "./rollback.ts";
import { uninstallUnlocked } from "./uninstall.ts";

export interface RecoveryReport {
  removed: string[];
}

export interface ManagedPluginLifecycle extends PluginLifecycle {
  /** Crash cleanup; runs once automatically before the first operation. */
  recover(): Promise<RecoveryReport>;
}

const keyView = (k: TrustedKeyRecord): TrustedKeyView => ({
  namespace: k.namespace,
  keyId: k.keyId,
  addedAt: k.addedAt,
});

export function createPluginLifecycle(options: PluginLifecycleOptions): ManagedPluginLifecycle {
  const ctx: LifecycleContext = {
    ...options,
    dataDir: resolve(options.dataDir),
    limits: options.limits ?? {},
    cwd: options.cwd ?? process.cwd(),
    filesPresent: (path) =>
      ["airlock.json", "index.js", "package.json"].every((f) =>
        existsSync(join(pluginDirOf(resolve(options.dataDir), path), f)),
      ),
  };
  const { store } = ctx;

  const recover = async (): Promise<RecoveryReport> => {
    await importRememberedKeys(store, ctx.dataDir);
    const removed = removeDeadStaging(ctx.dataDir);
    for (const namespace of namespaceDirs(ctx.dataDir)) {
      await withNamespaceLock(ctx.dataDir, namespace, async () => {
        const known = new Set((await store.listInstalledPlugins(namespace)).map((r) => r.version));
        removed.push(...removeOrphanVersions(ctx.dataDir, namespace, known));
      });
    }
    return { removed };
  };
  let recovered: Promise<RecoveryReport> | undefined;
  const ready = (): Promise<RecoveryReport> => {
    // A failed recovery (e.g. a lock held too long) is retried by the next operation.
    recovered ??= recover().catch((err: unknown) => {
      recovered = undefined;
      throw err;
    });
    return recovered;
  };

  const lifecycle: ManagedPluginLifecycle = {
    recover: ready,
    registryUrl: ctx.registryUrl ?? null,
    registry: createRegistryBrowser({ registryUrl: ctx.registryUrl, store }),

    async install(spec, opts = {}) {
      await ready();
      return installSpec(ctx, spec, opts);
    },

    async installTarball(bytes, source, opts = {}) {
      await ready();
      const origin = source.startsWith("file:") ? source : `file:${source}`;
      return installVerified(ctx, {
        bytes,
        source: origin,
        origin,
        signatures: opts.signatures ?? [],
        ...fileOrdering(opts),
        ...(opts.trustKeys === undefined ? {} : { trustKeys: opts.trustKeys }),
      });
    },

    async upgrade(namespace, range = "", opts = {}) {
      await ready();
      const activation = await store.getActivation(namespace);
      const active =
        activation === null ? null : await store.getInstalledPlugin(namespace, activation.active);
      if (active === null)
        throw installError("AIRLOCK_INSTALL_NOT_INSTALLED", `no plugin is installed under "${namespace}"`);
      if (active.source.startsWith("file:")) {
        throw installError(
          "AIRLOCK_INSTALL_UPGRADE_NEEDS_REGISTRY",
          `${namespace} was installed from ${active.source}`,
        );
      }
      return installFromRegistry(ctx, originOfSource(active.source), namespace, range, opts);
    },

    async rollback(namespace) {
      await ready();
      return withNamespaceLock(ctx.dataDir, namespace, () => rollbackUnlocked(ctx, namespace));
    },

    async uninstall(namespace, opts = {}) {
      await ready();
      return withNamespaceLock(ctx.dataDir, namespace, () =>
        uninstallUnlocked(ctx, namespace, opts.purge === true),
      );
    },

    async trustedKeys(namespace) {
      return (await store.listTrustedKeys(namespace)).map(keyView);
    },

    async forgetTrustedKey(namespace, keyId) {
      const kept = (await store.listTrustedKeys(namespace)).find((k) => k.keyId === keyId);
      if (kept === undefined || !(await store.deleteTrustedKey(namespace, keyId))) {
        throw installError(
          "AIRLOCK_INSTALL_KEY_NOT_TRUSTED",
          `${namespace} does not trust the key ${keyId}`,
          {
            namespace,
            keyId,
          },
        );
      }
      return keyView(kept);
    },

    async list(): Promise<InstalledPluginView[]> {
      await ready();
      const views: InstalledPluginView[] = [];
      for (const activation of await store.listActivations()) {
        const records = await store.listInstalledPlugins(activation.namespace);
        const active = records.find((r) => r.version === activation.active);
        if (active === undefined) continue;
        views.push({
          namespace: activation.namespace,
          active: activation.active,
          previous: activation.previous,
          versions: records.map((r) => r.version),
          tools: toolIds(active),
          signer: active.signer,
          source: active.source,
        });
      }
      return views;
    },
  };
  return lifecycle;
}
