// Builds the PluginLifecycle the host exposes as `host.plugins` from the installer
// (host/src/engine/install/, createPluginLifecycle) with this host's store, data dir, registry, trust
// roots and version. host-api.ts wraps it: after every lifecycle call the catalogue is reloaded
// and sandbox isolates of versions no longer active are unloaded.
import { SDK_VERSION } from "@airlock/sdk/manifest";
import type { ResolvedHostOptions } from "./config.ts";
import { createPluginLifecycle, type ManagedPluginLifecycle } from "./engine/install/index.ts";
import type { Store } from "./state/store/types.ts";

export interface LifecycleWiring {
  store: Store;
  options: ResolvedHostOptions;
}

/** The SDK versions this host runs: the same major as the SDK it ships with. */
export const SUPPORTED_SDK = `^${SDK_VERSION}`;

export function createPluginLifecycleFor(wiring: LifecycleWiring): ManagedPluginLifecycle {
  const { options } = wiring;
  return createPluginLifecycle({
    store: wiring.store,
    dataDir: options.dataDir,
    ...(options.registryUrl === undefined ? {} : { registryUrl: options.registryUrl }),
    trust: options.trust,
    hostVersion: options.hostVersion,
    supportedSdk: SUPPORTED_SDK,
  });
}
