// How `host.remote` reads and writes a server's revisions: the active install record of a
// namespace, a fresh listing of the server's tools, and the next revision written and activated
// like any plugin version.
// Contract: `activeRemote` refuses a namespace with no remote server (AIRLOCK_REMOTE_NOT_REMOTE);
// `listNow` lists through a session (as an agent when asked, which must exist) within
// LISTING_TIMEOUT_MS and LISTING_MAX_BYTES (AIRLOCK_REMOTE_TIMEOUT past it); `writeRevision`
// stores and activates a record, then refreshes the catalogue.
// Invariants: a written revision is `revision + 1` of the one it follows; only the active and
// previous revisions are kept (rollback), as the installer does for packages; callers serialise
// the operations of one namespace (servers.ts).
import { hasCode } from "@airlock/sdk";
import type { InstalledPluginRecord } from "../../state/store/types.ts";
import type { RemoteContext } from "./context.ts";
import { type RemoteSection, type RemoteTool, remoteRecord, remoteSectionOf } from "./definitions.ts";
import { remoteError } from "./errors.ts";
import { LISTING_MAX_BYTES, LISTING_TIMEOUT_MS } from "./execute.ts";

export async function activeRemote(
  ctx: RemoteContext,
  namespace: string,
): Promise<{ record: InstalledPluginRecord; section: RemoteSection }> {
  const activation = typeof namespace === "string" ? await ctx.store.getActivation(namespace) : null;
  const record =
    activation === null ? null : await ctx.store.getInstalledPlugin(namespace, activation.active);
  const section = record === null ? undefined : remoteSectionOf(record);
  if (record === null || section === undefined) {
    throw remoteError(
      "AIRLOCK_REMOTE_NOT_REMOTE",
      `no remote MCP server is installed under "${String(namespace)}"`,
    );
  }
  return { record, section };
}

export async function listNow(
  ctx: RemoteContext,
  section: RemoteSection,
  namespace: string,
  agent: string | undefined,
) {
  if (agent !== undefined && (await ctx.store.getAgent(agent)) === null) {
    throw remoteError("AIRLOCK_REMOTE_SPEC_INVALID", `--as-agent: no agent "${agent}"`);
  }
  const signal = AbortSignal.timeout(LISTING_TIMEOUT_MS);
  try {
    return await ctx.withSession(
      section,
      namespace,
      agent ?? null,
      { maxBytes: LISTING_MAX_BYTES, signal },
      async (session) => ({ tools: await session.listTools(), server: session.server() }),
    );
  } catch (error) {
    if (signal.aborted && !(hasCode(error) && error.code.startsWith("AIRLOCK_FETCH_"))) {
      throw remoteError(
        "AIRLOCK_REMOTE_TIMEOUT",
        `the remote MCP server at ${new URL(section.url).host} did not list its tools within ${LISTING_TIMEOUT_MS} ms`,
        {},
        error,
      );
    }
    throw error;
  }
}

export async function writeRevision(ctx: RemoteContext, next: InstalledPluginRecord): Promise<void> {
  await ctx.store.putInstalledPlugin(next);
  await ctx.store.activatePlugin(next.namespace, next.version);
  // Keep the active and previous revisions (rollback), as the installer does for packages.
  const activation = await ctx.store.getActivation(next.namespace);
  const keep = new Set([activation?.active, activation?.previous]);
  for (const old of await ctx.store.listInstalledPlugins(next.namespace)) {
    if (!keep.has(old.version)) await ctx.store.deleteInstalledPlugin(old.namespace, old.version);
  }
  await ctx.refreshCatalogue();
}

export function nextRevision(
  record: InstalledPluginRecord,
  section: RemoteSection,
  listing: ReadonlyMap<string, RemoteTool>,
  readOnly: ReadonlySet<string>,
  keepPins?: RemoteSection["tools"],
) {
  const { tools: _pins, ...rest } = section;
  return remoteRecord({
    namespace: record.namespace,
    section: { ...rest, revision: section.revision + 1 },
    listing,
    readOnly,
    installedAt: new Date().toISOString(),
    ...(keepPins === undefined ? {} : { keepPins }),
  });
}

/** The tools the operator marked read-only in `section`. */
export function readOnlyMarks(section: RemoteSection): Set<string> {
  return new Set(
    Object.entries(section.tools)
      .filter(([, p]) => p.readOnly)
      .map(([t]) => t),
  );
}

/** The pinned definitions of `record` as a listing, to rebuild a revision without the server. */
export function pinnedListing(
  record: InstalledPluginRecord,
  section: RemoteSection,
): Map<string, RemoteTool> {
  return new Map<string, RemoteTool>(
    record.manifest.tools.map((t) => {
      const p = section.tools[t.name] as NonNullable<(typeof section.tools)[string]>;
      const remote: RemoteTool = {
        name: p.remoteName,
        description: t.description,
        inputSchema: t.inputSchema,
        annotations: p.hints,
      };
      if (t.outputSchema !== undefined) remote.outputSchema = t.outputSchema;
      if (t.annotations.title !== undefined) remote.title = t.annotations.title;
      return [t.name, remote];
    }),
  );
}
