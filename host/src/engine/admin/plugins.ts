// The host's plugin operations: the lifecycle (install, upgrade, rollback, uninstall, list),
// a plugin's sandbox worker tier, and remote MCP servers installed as plugins.
// Invariants: every lifecycle call is audited (plugin.install, .upgrade, .rollback, .uninstall)
// and the catalogue is reloaded after it, succeeded or failed (`refresh` announces the change);
// forgetting a namespace's trusted key is audited (plugin.trust.forget) and changes no catalogue;
// the listing carries each plugin's worker tier; a tier change is audited (plugin.worker).
import type { AirlockHost, PluginLifecycle } from "../../contracts/host.ts";
import { type AdminAudit, audited } from "../catalogue/admin-audit.ts";
import type { WorkerTiers } from "../pipeline/worker-tiers.ts";
import type { RemoteContext } from "../remote/context.ts";
import { createRemoteServers } from "../remote/servers.ts";
import type { AdminContext } from "./context.ts";

export type PluginOps = Pick<AirlockHost, "plugins" | "setPluginWorker" | "remote">;

export function createPluginOps(
  ctx: Pick<AdminContext, "admin">,
  parts: {
    lifecycle: PluginLifecycle;
    tiers: Pick<WorkerTiers, "set" | "view">;
    remoteContext: RemoteContext;
    /** Reloads the catalogue and announces the change (catalogue-sync.ts). */
    refresh: () => Promise<void>;
  },
): PluginOps {
  const { admin } = ctx;
  const { tiers } = parts;
  const lifecycle = auditedLifecycle(parts.lifecycle, admin, parts.refresh);
  return {
    plugins: {
      ...lifecycle,
      list: async () => (await lifecycle.list()).map((p) => ({ ...p, worker: tiers.view(p.namespace) })),
    },
    setPluginWorker: (namespace, tier) =>
      audited(admin, "plugin.worker", { plugin: namespace, details: { tier } }, () =>
        tiers.set(namespace, tier),
      ),
    remote: createRemoteServers(parts.remoteContext, admin),
  };
}

/** The lifecycle as the host exposes it: every call audited, the catalogue reloaded after it. */
function auditedLifecycle(
  lifecycle: PluginLifecycle,
  admin: AdminAudit,
  refresh: () => Promise<void>,
): PluginLifecycle {
  const wrap = async <T>(
    action: string,
    plugin: string | null,
    details: Record<string, unknown>,
    run: () => Promise<T>,
  ) => {
    try {
      return await audited(admin, action, { plugin, details }, run);
    } finally {
      await refresh();
    }
  };
  return {
    registryUrl: lifecycle.registryUrl,
    // reads only: the console audits a refused read itself (registry-routes.ts)
    registry: lifecycle.registry,
    install: (spec, opts) => wrap("plugin.install", null, { spec }, () => lifecycle.install(spec, opts)),
    installTarball: (bytes, source, opts) =>
      wrap("plugin.install", null, { source }, () => lifecycle.installTarball(bytes, source, opts)),
    upgrade: (namespace, range, opts) =>
      wrap("plugin.upgrade", namespace, { range: range ?? null }, () =>
        lifecycle.upgrade(namespace, range, opts),
      ),
    rollback: (namespace) => wrap("plugin.rollback", namespace, {}, () => lifecycle.rollback(namespace)),
    uninstall: (namespace, opts) =>
      wrap("plugin.uninstall", namespace, { purge: opts?.purge === true }, () =>
        lifecycle.uninstall(namespace, opts),
      ),
    list: () => lifecycle.list(),
    trustedKeys: (namespace) => lifecycle.trustedKeys(namespace),
    // no catalogue change: what is installed stays installed
    forgetTrustedKey: (namespace, keyId) =>
      audited(admin, "plugin.trust.forget", { plugin: namespace, details: { keyId } }, () =>
        lifecycle.forgetTrustedKey(namespace, keyId),
      ),
  };
}
