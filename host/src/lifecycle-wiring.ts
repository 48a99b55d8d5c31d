// Builds the PluginLifecycle the host exposes as `host.plugins`. The installer
// (host/src/install, createPluginLifecycle) does install/upgrade/rollback/uninstall; until it
// is wired here, those refuse with AIRLOCK_HOST_LIFECYCLE_UNAVAILABLE and `list` reads the
// store directly. host-api.ts reloads the catalogue after every lifecycle call either way.
import type { ResolvedHostOptions } from "./config.ts";
import { hostError } from "./host-errors.ts";
import type { InstalledPluginView, PluginLifecycle } from "./host-types.ts";
import type { Sandbox } from "./sandbox/types.ts";
import type { Store } from "./store/types.ts";

export interface LifecycleWiring {
  store: Store;
  sandbox: Sandbox;
  options: ResolvedHostOptions;
}

/** Installed plugins as the lifecycle lists them, read from the store. */
export async function listInstalled(store: Store): Promise<InstalledPluginView[]> {
  const views: InstalledPluginView[] = [];
  for (const activation of await store.listActivations()) {
    const versions = await store.listInstalledPlugins(activation.namespace);
    const active = versions.find((v) => v.version === activation.active);
    views.push({
      namespace: activation.namespace,
      active: activation.active,
      previous: activation.previous,
      versions: versions.map((v) => v.version),
      tools: (active?.manifest.tools ?? []).map((t) => `${activation.namespace}:${t.name}`),
      signer: active?.signer ?? null,
      source: active?.source ?? "",
    });
  }
  return views.sort((a, b) => a.namespace.localeCompare(b.namespace));
}

export function createPluginLifecycleFor(wiring: LifecycleWiring): PluginLifecycle {
  const unavailable = async (): Promise<never> => {
    throw hostError(
      "AIRLOCK_HOST_LIFECYCLE_UNAVAILABLE",
      "plugin installation is not available in this host build yet",
    );
  };
  return {
    install: unavailable,
    installTarball: unavailable,
    upgrade: unavailable,
    rollback: unavailable,
    uninstall: unavailable,
    list: () => listInstalled(wiring.store),
  };
}
