// What `host.remote` shows of an installed server: its view (URL, transport, OAuth, pinned tools
// with their drift marks) and the changes between its pinned definitions and a fresh listing.
// Contract: pure reads of an install record's remote section (definitions.ts) and of a listing;
// nothing here touches the store or the network.
// Invariants: a view names secrets by key only (the header's secret key, the OAuth endpoints),
// never a value; changes are sorted by tool and hashed with definitionHash, the hash the pins carry.
import type { InstalledPluginRecord } from "../../state/store/types.ts";
import type { RemoteContext } from "./context.ts";
import { definitionHash, type RemoteSection, type RemoteTool } from "./definitions.ts";
import type { RemoteChange, RemoteServerView, RemoteToolView } from "./types.ts";

export function toolViews(
  record: InstalledPluginRecord,
  section: RemoteSection,
  refused: ReadonlySet<string>,
): RemoteToolView[] {
  return Object.entries(section.tools).map(([tool, pin]) => ({
    id: `${record.namespace}:${tool}`,
    tool,
    remoteName: pin.remoteName,
    hash: pin.hash,
    readOnly: pin.readOnly,
    hints: structuredClone(pin.hints),
    refused: refused.has(tool),
  }));
}

/** The view of one installed server; tools whose definitions drifted are marked refused. */
export function serverView(
  ctx: Pick<RemoteContext, "drift">,
  record: InstalledPluginRecord,
  section: RemoteSection,
): RemoteServerView {
  return {
    namespace: record.namespace,
    url: section.url,
    version: record.version,
    revision: section.revision,
    server: section.server,
    header: section.header,
    stdio: section.stdio ? { command: section.stdio.command, args: [...section.stdio.args] } : null,
    oauth:
      section.oauth === undefined || section.oauth === null
        ? null
        : {
            provider: section.oauth.provider,
            authorizationUrl: section.oauth.authorizationUrl,
            tokenUrl: section.oauth.tokenUrl,
            scopes: [...section.oauth.scopes],
          },
    allowPrivate: [...section.allowPrivate],
    tools: toolViews(record, section, new Set(ctx.drift(`${record.namespace}@${record.version}`).keys())),
  };
}

/** The tools removed, changed or added in `listing` against the pins of `section`. */
export function changesOf(
  section: RemoteSection,
  listing: ReadonlyMap<string, RemoteTool>,
  record: InstalledPluginRecord,
): RemoteChange[] {
  const changes: RemoteChange[] = [];
  const pinnedDescription = (tool: string) =>
    record.manifest.tools.find((t) => t.name === tool)?.description ?? null;
  for (const [tool, pin] of Object.entries(section.tools)) {
    const listed = listing.get(tool);
    if (listed === undefined) {
      changes.push({
        tool,
        remoteName: pin.remoteName,
        kind: "removed",
        pinnedHash: pin.hash,
        listedHash: null,
        pinnedDescription: pinnedDescription(tool),
        listedDescription: null,
      });
      continue;
    }
    const hash = definitionHash(listed);
    if (hash !== pin.hash) {
      changes.push({
        tool,
        remoteName: listed.name,
        kind: "changed",
        pinnedHash: pin.hash,
        listedHash: hash,
        pinnedDescription: pinnedDescription(tool),
        listedDescription: listed.description ?? "",
      });
    }
  }
  for (const [tool, listed] of listing) {
    if (section.tools[tool] === undefined) {
      changes.push({
        tool,
        remoteName: listed.name,
        kind: "added",
        pinnedHash: null,
        listedHash: definitionHash(listed),
        pinnedDescription: null,
        listedDescription: listed.description ?? "",
      });
    }
  }
  return changes.sort((a, b) => a.tool.localeCompare(b.tool));
}
