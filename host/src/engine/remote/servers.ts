// `host.remote` (types.ts): installing a remote MCP server as a plugin, reviewing what changed on
// it, and the operator's read-only marks. Each pinned state is an install record (a "revision",
// plugin version 0.0.<revision>) made active through the store like any plugin version, so the
// catalogue, enablement, secrets, rollback and uninstall treat it as a plugin.
// Invariants: nothing is written unless the server was listed and every definition mapped
// (a refusal leaves the store as it was); a namespace already installed is refused; the URL
// passes the egress gate's rules at install (scheme, address after DNS, the operator's host
// policy) and on every request after (install-options.ts checks the options first; a stdio
// server's command must be the one the operator allowed); operations on one namespace run one at
// a time in this process; every operation is audited (kind admin), refusals included.
import { hasCode, namespaceRefusal } from "@airlock/sdk";
import type { InstallReport } from "../../contracts/host.ts";
import type { InstalledPluginRecord } from "../../state/store/types.ts";
import type { AdminAudit } from "../catalogue/admin-audit.ts";
import type { RemoteContext } from "./context.ts";
import {
  definitionHash,
  mapListing,
  type RemoteSection,
  type RemoteTool,
  remoteRecord,
  remoteSectionOf,
} from "./definitions.ts";
import { remoteError } from "./errors.ts";
import { LISTING_MAX_BYTES, LISTING_TIMEOUT_MS } from "./execute.ts";
import { checkOptions, checkStdio, parseRemoteUrl, stdioCommandOf } from "./install-options.ts";
import type { RemoteChange, RemoteServers, RemoteServerView, RemoteToolView } from "./types.ts";

function toolViews(
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

export function createRemoteServers(ctx: RemoteContext, admin: AdminAudit): RemoteServers {
  const queues = new Map<string, Promise<unknown>>();
  /** One operation per namespace at a time (in this process). */
  function serial<T>(namespace: string, work: () => Promise<T>): Promise<T> {
    const before = queues.get(namespace) ?? Promise.resolve();
    const next = before.catch((earlier: unknown) => void earlier).then(work);
    queues.set(namespace, next);
    return next.finally(() => {
      if (queues.get(namespace) === next) queues.delete(namespace);
    });
  }

  async function auditedOp<T>(
    action: string,
    plugin: string,
    details: Record<string, unknown>,
    run: () => Promise<T>,
  ) {
    try {
      const out = await run();
      await admin(action, { plugin, details });
      return out;
    } catch (error) {
      await admin(action, { plugin, details }, error);
      throw error;
    }
  }

  async function active(
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

  async function listNow(section: RemoteSection, namespace: string, agent: string | undefined) {
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

  function changesOf(
    section: RemoteSection,
    listing: ReadonlyMap<string, RemoteTool>,
    record: InstalledPluginRecord,
  ) {
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

  function view(record: InstalledPluginRecord, section: RemoteSection): RemoteServerView {
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

  async function writeRevision(next: InstalledPluginRecord): Promise<void> {
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

  function nextRevision(
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

  return {
    install(spec, options) {
      const namespace = String(options?.namespace ?? "");
      return auditedOp("remote.install", namespace, { url: String(spec).slice(0, 500) }, () =>
        serial(namespace, async (): Promise<InstallReport> => {
          const command = stdioCommandOf(spec);
          const stdio = command === undefined ? null : checkStdio(command, options);
          const url = stdio === null ? parseRemoteUrl(spec) : `stdio:${stdio.command}`;
          if (stdio === null) checkOptions(options, url);
          else {
            const refusal =
              typeof options?.namespace === "string" ? namespaceRefusal(options.namespace) : "is missing";
            if (refusal !== null) {
              throw remoteError(
                "AIRLOCK_REMOTE_SPEC_INVALID",
                `--namespace ${JSON.stringify(options?.namespace ?? "")} ${refusal}`,
              );
            }
          }
          if (
            (await ctx.store.listInstalledPlugins(namespace)).length > 0 ||
            (await ctx.store.getActivation(namespace)) !== null
          ) {
            throw remoteError(
              "AIRLOCK_REMOTE_NAMESPACE_TAKEN",
              `a plugin is already installed under "${namespace}"; uninstall it or pick another --namespace`,
            );
          }
          const section: RemoteSection = {
            url,
            allowPrivate: [...(options.allowPrivate ?? [])],
            header: options.header === undefined ? null : { ...options.header },
            stdio,
            oauth:
              options.oauth === undefined
                ? null
                : {
                    provider: options.oauth.provider,
                    authorizationUrl: options.oauth.authorizationUrl,
                    tokenUrl: options.oauth.tokenUrl,
                    ...(options.oauth.revocationUrl === undefined
                      ? {}
                      : { revocationUrl: options.oauth.revocationUrl }),
                    scopes: [...(options.oauth.scopes ?? [])],
                  },
            server: null,
            revision: 1,
            tools: {},
          };
          // A server behind OAuth answers 401 until an agent connects: it is installed with no
          // tools pinned, and a review as a connected agent (--as-agent) pins them.
          const { tools, server } = await listNow(section, namespace, options.asAgent).catch(
            (error: unknown) => {
              if (section.oauth !== null && hasCode(error, "AIRLOCK_REMOTE_UNAUTHORIZED")) {
                return { tools: [] as RemoteTool[], server: null };
              }
              throw error;
            },
          );
          const listing = mapListing(namespace, tools);
          const { tools: _none, ...rest } = { ...section, server };
          const record = remoteRecord({
            namespace,
            section: rest,
            listing,
            readOnly: new Set(),
            installedAt: new Date().toISOString(),
          });
          await writeRevision(record);
          return {
            namespace,
            version: record.version,
            previous: null,
            tools: record.manifest.tools.map((t) => `${namespace}:${t.name}`),
            signer: null,
          };
        }),
      );
    },

    async list() {
      const out: RemoteServerView[] = [];
      for (const activation of await ctx.store.listActivations()) {
        const record = await ctx.store.getInstalledPlugin(activation.namespace, activation.active);
        const section = record === null ? undefined : remoteSectionOf(record);
        if (record !== null && section !== undefined) out.push(view(record, section));
      }
      return out.sort((a, b) => a.namespace.localeCompare(b.namespace));
    },

    async status(namespace, options) {
      const { record, section } = await active(namespace);
      const listedAt = performance.now();
      const { tools } = await listNow(section, namespace, options?.asAgent);
      ctx.observe(record, section, tools, listedAt);
      const listing = mapListing(namespace, tools);
      return { ...view(record, section), changes: changesOf(section, listing, record) };
    },

    review(namespace, options) {
      return auditedOp("remote.review", namespace, { expect: options?.expect ?? null }, () =>
        serial(namespace, async () => {
          const { record, section } = await active(namespace);
          const { tools } = await listNow(section, namespace, options?.asAgent);
          const listing = mapListing(namespace, tools);
          const changes = changesOf(section, listing, record);
          if (changes.length === 0) {
            throw remoteError(
              "AIRLOCK_REMOTE_NO_CHANGE",
              `the definitions ${namespace} lists equal the pinned ones; nothing to review`,
            );
          }
          if (options?.expect !== undefined) {
            const now = Object.fromEntries(changes.map((c) => [c.tool, c.listedHash]));
            const same =
              Object.keys(now).length === Object.keys(options.expect).length &&
              Object.entries(options.expect).every(([tool, hash]) => tool in now && now[tool] === hash);
            if (!same) {
              throw remoteError(
                "AIRLOCK_REMOTE_DEFINITION_CHANGED",
                `${namespace} changed again since the reviewed listing; look at the changes again`,
              );
            }
          }
          const readOnly = new Set(
            Object.entries(section.tools)
              .filter(([, p]) => p.readOnly)
              .map(([t]) => t),
          );
          const next = nextRevision(record, section, listing, readOnly);
          await writeRevision(next);
          const nextSection = remoteSectionOf(next) as RemoteSection;
          return { ...view(next, nextSection), changes };
        }),
      );
    },

    sessions: () => ctx.sessionStats(),

    setReadOnly(namespace, tool, readOnly) {
      return auditedOp("remote.read_only", namespace, { tool, readOnly }, () =>
        serial(namespace, async () => {
          const { record, section } = await active(namespace);
          if (typeof readOnly !== "boolean")
            throw remoteError("AIRLOCK_REMOTE_SPEC_INVALID", "readOnly must be true or false");
          const pin = section.tools[tool];
          if (pin === undefined) {
            throw remoteError(
              "AIRLOCK_REMOTE_TOOL_UNKNOWN",
              `${namespace} has no pinned tool "${String(tool)}" (pinned: ${Object.keys(section.tools).join(", ")})`,
            );
          }
          // The pinned definitions stay as they are: rebuild the revision from the record itself.
          const listing = new Map<string, RemoteTool>(
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
          const marks = new Set(
            Object.entries(section.tools)
              .filter(([, p]) => p.readOnly)
              .map(([t]) => t),
          );
          if (readOnly) marks.add(tool);
          else marks.delete(tool);
          const next = nextRevision(record, section, listing, marks, section.tools);
          await writeRevision(next);
          const nextSection = remoteSectionOf(next) as RemoteSection;
          return toolViews(next, nextSection, new Set()).find((t) => t.tool === tool) as RemoteToolView;
        }),
      );
    },
  };
}
