// The tool catalogue: every tool of every active plugin version, read from the store.
// Regular tools are listed as `<namespace>:<tool>`; harness tools (manifest `harness` set)
// are kept apart, never listed, and reachable only through their harness group.
// Invariants: a reload builds a complete new view and swaps it in at once (readers never see
// half a reload); a tool id is served by at most one plugin version — should two active
// records ever declare the same id (the lifecycle refuses this at install; this is the
// double-check on load) the first in namespace order keeps it and the other is reported as
// an AIRLOCK_CATALOGUE_COLLISION problem and not served.
import { parseToolId, parseWireName, type ToolId, toolId } from "@airlock/sdk";
import type { ToolManifest } from "@airlock/sdk/manifest";
import type { InstalledPluginRecord, Store } from "../../state/store/types.ts";
import { remoteSectionOf } from "../remote/definitions.ts";

/**
 * What runs a catalogue entry's calls (engine/pipeline/executors/): its plugin's isolate, or the
 * remote MCP server the plugin record stands for. (The third executor, `host`, answers the
 * host's own tools — skills, code mode — which are not catalogue entries.)
 */
export type EntryExecutor = "sandbox" | "remote";

export interface CatalogueEntry {
  readonly id: ToolId;
  readonly namespace: string;
  readonly version: string;
  readonly tool: ToolManifest;
  readonly plugin: InstalledPluginRecord;
  /** Named when the entry is read, from its plugin record alone. */
  readonly executor: EntryExecutor;
}

export interface CatalogueProblem {
  code: "AIRLOCK_CATALOGUE_COLLISION" | "AIRLOCK_CATALOGUE_RECORD_MISSING";
  namespace: string;
  message: string;
}

export interface Catalogue {
  /** Re-reads active plugins from the store; returns the problems found (also kept in `problems`). */
  reload(): Promise<CatalogueProblem[]>;
  /**
   * Reloads only when the set of active versions changed since the last load (another replica
   * or process installed, upgraded or rolled back). The problems of the reload, or null when
   * nothing changed.
   */
  sync(): Promise<CatalogueProblem[] | null>;
  /** Regular (non-harness) tools, sorted by id. */
  tools(): CatalogueEntry[];
  /** Any tool by canonical id, harness tools included. */
  get(id: string): CatalogueEntry | undefined;
  harnessGroups(): string[];
  harness(group: string): CatalogueEntry[];
  /** Active plugin versions, `namespace → record`. */
  plugins(): ReadonlyMap<string, InstalledPluginRecord>;
  problems(): CatalogueProblem[];
}

interface View {
  /** `ns@version` of every activation read, sorted: what `sync` compares. */
  signature: string;
  byId: Map<string, CatalogueEntry>;
  regular: CatalogueEntry[];
  harness: Map<string, CatalogueEntry[]>;
  plugins: Map<string, InstalledPluginRecord>;
  problems: CatalogueProblem[];
}

const emptyView = (): View => ({
  signature: "",
  byId: new Map(),
  regular: [],
  harness: new Map(),
  plugins: new Map(),
  problems: [],
});

/** The canonical id for `ns:tool` or `ns__tool`; undefined when the name is neither. */
export function canonicalToolId(name: string): ToolId | undefined {
  if (typeof name !== "string") return undefined;
  const parsed = name.includes(":") ? parseToolId(name) : parseWireName(name);
  if (parsed === undefined || parsed.tool === "" || parsed.namespace.includes("_")) return undefined;
  return toolId(parsed.namespace, parsed.tool);
}

function signatureOf(activations: ReadonlyArray<{ namespace: string; active: string }>): string {
  return activations
    .map((a) => `${a.namespace}@${a.active}`)
    .sort()
    .join(",");
}

async function buildView(store: Store): Promise<View> {
  const view = emptyView();
  const activations = (await store.listActivations()).sort((a, b) => a.namespace.localeCompare(b.namespace));
  view.signature = signatureOf(activations);
  for (const activation of activations) {
    const record = await store.getInstalledPlugin(activation.namespace, activation.active);
    if (record === null) {
      view.problems.push({
        code: "AIRLOCK_CATALOGUE_RECORD_MISSING",
        namespace: activation.namespace,
        message: `${activation.namespace}@${activation.active} is active but has no install record; its tools are not served`,
      });
      continue;
    }
    const claimed: CatalogueEntry[] = [];
    const executor: EntryExecutor = remoteSectionOf(record) === undefined ? "sandbox" : "remote";
    let collided = false;
    for (const tool of record.manifest.tools) {
      const id = toolId(record.namespace, tool.name);
      const holder = view.byId.get(id);
      if (holder !== undefined) {
        view.problems.push({
          code: "AIRLOCK_CATALOGUE_COLLISION",
          namespace: record.namespace,
          message: `${id} of ${record.namespace}@${record.version} collides with ${holder.namespace}@${holder.version}; ${record.namespace}@${record.version} is not served`,
        });
        collided = true;
        break;
      }
      claimed.push({
        id,
        namespace: record.namespace,
        version: record.version,
        tool,
        plugin: record,
        executor,
      });
    }
    // A version with no tools (a remote server behind OAuth before anything is pinned) is still active.
    if (collided) continue;
    view.plugins.set(record.namespace, record);
    for (const entry of claimed) {
      view.byId.set(entry.id, entry);
      if (entry.tool.harness === null) view.regular.push(entry);
      else {
        const group = view.harness.get(entry.tool.harness) ?? [];
        group.push(entry);
        view.harness.set(entry.tool.harness, group);
      }
    }
  }
  view.regular.sort((a, b) => a.id.localeCompare(b.id));
  return view;
}

export function createCatalogue(store: Store): Catalogue {
  let view = emptyView();
  let pending: Promise<CatalogueProblem[]> | null = null;

  async function reload(): Promise<CatalogueProblem[]> {
    // Serialise reloads: a reload requested while one runs waits for it, then runs again.
    while (pending !== null) await pending.catch(() => undefined);
    pending = buildView(store).then((next) => {
      view = next;
      return next.problems;
    });
    try {
      return await pending;
    } finally {
      pending = null;
    }
  }

  return {
    reload,
    async sync() {
      if (signatureOf(await store.listActivations()) === view.signature) return null;
      return reload();
    },
    tools: () => [...view.regular],
    get: (id) => view.byId.get(id),
    harnessGroups: () => [...view.harness.keys()].sort(),
    harness: (group) => [...(view.harness.get(group) ?? [])],
    plugins: () => view.plugins,
    problems: () => [...view.problems],
  };
}
