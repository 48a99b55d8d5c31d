// Store-side steps shared by install, upgrade and rollback: activate a version, then keep only
// the active and previous versions (older ones are removed from the store and the disk), and
// tell the host. Call under the namespace lock.
import type { InstalledPluginRecord, PluginActivation } from "../../state/store/types.ts";
import type { LifecycleContext } from "./context.ts";
import { removeVersionDir } from "./files.ts";

export function toolIds(record: InstalledPluginRecord): string[] {
  return record.manifest.tools.map((t) => `${record.namespace}:${t.name}`);
}

export async function activateAndPrune(
  ctx: LifecycleContext,
  record: InstalledPluginRecord,
): Promise<PluginActivation> {
  const activation = await ctx.store.activatePlugin(record.namespace, record.version);
  await ctx.onActivated?.(record);
  const keep = new Set([activation.active, activation.previous]);
  for (const old of await ctx.store.listInstalledPlugins(record.namespace)) {
    if (keep.has(old.version)) continue;
    await ctx.store.deleteInstalledPlugin(old.namespace, old.version);
    removeVersionDir(ctx.dataDir, old.namespace, old.version);
    await ctx.onRemoved?.(old.namespace, old.version);
  }
  return activation;
}
