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
// Layout: server-install.ts installs, server-revisions.ts reads and writes revisions,
// server-views.ts shapes what the operator sees; this file serialises and audits the operations.
import type { AdminAudit } from "../catalogue/admin-audit.ts";
import type { RemoteContext } from "./context.ts";
import { mapListing, type RemoteSection, remoteSectionOf } from "./definitions.ts";
import { remoteError } from "./errors.ts";
import { installRemote } from "./server-install.ts";
import {
  activeRemote,
  listNow,
  nextRevision,
  pinnedListing,
  readOnlyMarks,
  writeRevision,
} from "./server-revisions.ts";
import { changesOf, serverView, toolViews } from "./server-views.ts";
import type { RemoteServers, RemoteServerView, RemoteToolView } from "./types.ts";

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

  return {
    install(spec, options) {
      const namespace = String(options?.namespace ?? "");
      return auditedOp("remote.install", namespace, { url: String(spec).slice(0, 500) }, () =>
        serial(namespace, () => installRemote(ctx, namespace, spec, options)),
      );
    },

    async list() {
      const out: RemoteServerView[] = [];
      for (const activation of await ctx.store.listActivations()) {
        const record = await ctx.store.getInstalledPlugin(activation.namespace, activation.active);
        const section = record === null ? undefined : remoteSectionOf(record);
        if (record !== null && section !== undefined) out.push(serverView(ctx, record, section));
      }
      return out.sort((a, b) => a.namespace.localeCompare(b.namespace));
    },

    async status(namespace, options) {
      const { record, section } = await activeRemote(ctx, namespace);
      const listedAt = performance.now();
      const { tools } = await listNow(ctx, section, namespace, options?.asAgent);
      ctx.observe(record, section, tools, listedAt);
      const listing = mapListing(namespace, tools);
      return { ...serverView(ctx, record, section), changes: changesOf(section, listing, record) };
    },

    review(namespace, options) {
      return auditedOp("remote.review", namespace, { expect: options?.expect ?? null }, () =>
        serial(namespace, async () => {
          const { record, section } = await activeRemote(ctx, namespace);
          const { tools } = await listNow(ctx, section, namespace, options?.asAgent);
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
          const next = nextRevision(record, section, listing, readOnlyMarks(section));
          await writeRevision(ctx, next);
          const nextSection = remoteSectionOf(next) as RemoteSection;
          return { ...serverView(ctx, next, nextSection), changes };
        }),
      );
    },

    sessions: () => ctx.sessionStats(),

    setReadOnly(namespace, tool, readOnly) {
      return auditedOp("remote.read_only", namespace, { tool, readOnly }, () =>
        serial(namespace, async () => {
          const { record, section } = await activeRemote(ctx, namespace);
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
          const listing = pinnedListing(record, section);
          const marks = readOnlyMarks(section);
          if (readOnly) marks.add(tool);
          else marks.delete(tool);
          const next = nextRevision(record, section, listing, marks, section.tools);
          await writeRevision(ctx, next);
          const nextSection = remoteSectionOf(next) as RemoteSection;
          return toolViews(next, nextSection, new Set()).find((t) => t.tool === tool) as RemoteToolView;
        }),
      );
    },
  };
}
