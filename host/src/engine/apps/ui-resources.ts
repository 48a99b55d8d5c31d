// Plugin UIs (MCP Apps) as the host serves them: `ui://<namespace>/<name>` for each UI that an
// enabled tool of the agent names, from the active plugin version only. The manifest (in the
// store, verified at install) says which UIs exist and their sha512; the bytes are the file the
// installer wrote beside the bundle (`ui/<name>.html`), read through the plugin's local folder
// (a replica without it rebuilds it from the verified package) and checked against that sha512
// on every read, so a UI changes only with a plugin upgrade.
// Invariants: a UI no enabled tool of the agent names is neither listed nor readable
// (AIRLOCK_UI_UNKNOWN, the same answer whether the plugin ships it or not); bytes that differ
// from the manifest are never served (AIRLOCK_UI_INTEGRITY).
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { hasCode, parseUiResourceUri, UI_MIME_TYPE, type UiManifest, uiResourceUri } from "@airlock/sdk";
import { sha512Integrity } from "@airlock/sdk/package";
import type { UiResourceDocument, UiResourceView } from "../../contracts/tools.ts";
import type { InstalledPluginRecord, Store } from "../../state/store/types.ts";
import type { Catalogue } from "../catalogue/catalogue.ts";
import { uiError } from "./errors.ts";

export interface UiSource {
  store: Store;
  catalogue: Catalogue;
  /** The folder holding an installed version's files on this replica. */
  locate(record: InstalledPluginRecord): Promise<string>;
}

interface Served {
  view: UiResourceView;
  ui: UiManifest;
  record: InstalledPluginRecord;
}

function viewOf(namespace: string, ui: UiManifest, tools: string[]): UiResourceView {
  const view: UiResourceView = {
    uri: uiResourceUri(namespace, ui.name),
    namespace,
    name: ui.name,
    mimeType: UI_MIME_TYPE,
    integrity: ui.integrity,
    tools,
  };
  if (ui.title !== undefined) view.title = ui.title;
  if (ui.description !== undefined) view.description = ui.description;
  if (ui.csp !== undefined) view.csp = structuredClone(ui.csp);
  if (ui.prefersBorder !== undefined) view.prefersBorder = ui.prefersBorder;
  return view;
}

/** The UIs the agent's enabled tools name, by URI, in URI order. */
async function served(source: UiSource, agent: string): Promise<Map<string, Served>> {
  const enabled = new Set(await source.store.listEnabledTools(agent));
  const tools = new Map<string, string[]>();
  for (const entry of source.catalogue.tools()) {
    if (entry.tool.ui === undefined || !enabled.has(entry.id)) continue;
    const uri = uiResourceUri(entry.namespace, entry.tool.ui);
    tools.set(uri, [...(tools.get(uri) ?? []), entry.id]);
  }
  const out = new Map<string, Served>();
  for (const [namespace, record] of source.catalogue.plugins()) {
    for (const ui of record.manifest.ui ?? []) {
      const uri = uiResourceUri(namespace, ui.name);
      const ids = tools.get(uri);
      if (ids !== undefined) out.set(uri, { view: viewOf(namespace, ui, ids.sort()), ui, record });
    }
  }
  return new Map([...out].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

export async function listUiResources(source: UiSource, agent: string): Promise<UiResourceView[]> {
  return [...(await served(source, agent)).values()].map((s) => s.view);
}

/** The HTML of a UI the agent is served; AIRLOCK_UI_UNKNOWN / AIRLOCK_UI_INTEGRITY otherwise. */
export async function readUiResource(
  source: UiSource,
  agent: string,
  uri: string,
): Promise<UiResourceDocument> {
  const shown = String(uri).slice(0, 200);
  const found = parseUiResourceUri(String(uri)) === null ? undefined : (await served(source, agent)).get(uri);
  if (found === undefined) {
    throw uiError("AIRLOCK_UI_UNKNOWN", `no UI ${JSON.stringify(shown)} for this agent`, { uri: shown });
  }
  const altered = (cause?: unknown) =>
    uiError(
      "AIRLOCK_UI_INTEGRITY",
      `${uri} on this host is missing or does not match the sha512 its manifest lists; reinstall ${found.record.namespace}`,
      { uri },
      cause,
    );
  const bytes = await readFile(join(await source.locate(found.record), found.ui.file)).catch(
    (error: unknown) => {
      if (hasCode(error, "ENOENT")) throw altered(error);
      throw error;
    },
  );
  if (sha512Integrity(bytes) !== found.ui.integrity || bytes.byteLength !== found.ui.size) throw altered();
  return { ...found.view, html: new TextDecoder("utf-8", { fatal: true }).decode(bytes) };
}
