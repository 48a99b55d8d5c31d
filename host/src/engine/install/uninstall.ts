// Uninstall: the plugin stops being served first (activation deleted), then its tools leave
// every agent's catalogue, then its records and files go. Knowledge documents it wrote
// (writer `plugin:<namespace>`) and the secrets it declared are kept and counted, unless
// `purge`: then those documents are deleted, and so are the secrets that no other installed
// plugin declares. The report says what was kept or deleted. Call under the namespace lock.
import type { UninstallReport } from "../../contracts/host.ts";
import type { InstalledPluginRecord, Store } from "../../state/store/types.ts";
import type { LifecycleContext } from "./context.ts";
import { installError } from "./errors.ts";
import { removeNamespaceDir } from "./files.ts";

/** The knowledge writer id of a plugin's tools (see DESIGN.md: the writer is derived, never claimed). */
export const pluginWriter = (namespace: string): string => `plugin:${namespace}`;

const declaredSecrets = (records: readonly InstalledPluginRecord[]): Set<string> =>
  new Set(records.flatMap((r) => r.manifest.tools.flatMap((t) => t.requiredSecrets.map((s) => s.key))));

async function secretsInUse(
  store: Store,
  keys: ReadonlySet<string>,
): Promise<Array<{ agent: string; key: string }>> {
  const found: Array<{ agent: string; key: string }> = [];
  for (const agent of await store.listAgents()) {
    for (const secret of await store.listSecrets(agent.slug)) {
      if (keys.has(secret.key)) found.push({ agent: agent.slug, key: secret.key });
    }
  }
  return found;
}

async function countKnowledge(store: Store, writer: string): Promise<number> {
  let n = 0;
  for (const agent of await store.listAgents()) {
    n += (await store.listKnowledgeDocs(agent.slug, { writer, limit: 1_000_000 })).length;
  }
  return n;
}

export async function uninstallUnlocked(
  ctx: LifecycleContext,
  namespace: string,
  purge: boolean,
): Promise<UninstallReport> {
  const { store } = ctx;
  const records = await store.listInstalledPlugins(namespace);
  const activation = await store.getActivation(namespace);
  if (records.length === 0 && activation === null) {
    throw installError("AIRLOCK_INSTALL_NOT_INSTALLED", `no plugin is installed under "${namespace}"`, {
      namespace,
    });
  }
  await store.deleteActivation(namespace);
  const disabledForAgents = await store.deleteToolEnablementForNamespace(namespace);

  const mine = declaredSecrets(records);
  const others = declaredSecrets(
    (await store.listInstalledPlugins()).filter((r) => r.namespace !== namespace),
  );
  const present = await secretsInUse(store, mine);
  const writer = pluginWriter(namespace);
  const docs = await countKnowledge(store, writer);

  let purged: UninstallReport["purged"] = null;
  let keptSecrets = [...new Set(present.map((s) => s.key))].sort();
  let keptDocs = docs;
  if (purge) {
    const deletable = present.filter((s) => !others.has(s.key));
    for (const s of deletable) await store.deleteSecret(s.agent, s.key);
    const deletedDocs = await store.deleteKnowledgeByWriter(writer);
    purged = { knowledgeDocuments: deletedDocs, secrets: [...new Set(deletable.map((s) => s.key))].sort() };
    keptSecrets = keptSecrets.filter((k) => others.has(k));
    keptDocs = 0;
  }

  for (const r of records) await store.deleteInstalledPlugin(r.namespace, r.version);
  removeNamespaceDir(ctx.dataDir, namespace);
  for (const r of records) await ctx.onRemoved?.(r.namespace, r.version);
  return {
    namespace,
    removedVersions: records.map((r) => r.version),
    disabledForAgents,
    kept: { knowledgeDocuments: keptDocs, secrets: keptSecrets },
    purged,
  };
}
