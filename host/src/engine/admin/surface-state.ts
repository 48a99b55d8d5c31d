// What the host's surfaces keep or read besides the operations of the other admin modules:
// installed plugin versions (the console's diffs and registry views), the surfaces' own audit
// entries, small per-conversation settings of the MCP surface, and the authorization server's
// persistence (`host.authorization`). (The people pages' form tokens are sealed, not kept:
// surfaces/http/people/tickets.ts.)
// Invariants: a surface's audit entry is kind `admin`, allowed and successful exactly when it
// carries no error code; conversation settings live under the host's own state namespace
// ("airlock"), never a plugin's.
import type { InstalledVersion } from "../../contracts/admin-ops.ts";
import type { AirlockHost } from "../../contracts/host.ts";
import type { InstalledPluginRecord, Store } from "../../state/store/types.ts";

export type SurfaceStateOps = Pick<
  AirlockHost,
  "getInstalledVersion" | "listActiveVersions" | "recordAudit" | "conversationSettings" | "authorization"
>;

const STATE_NAMESPACE = "airlock";
const SETTING_MAX_BYTES = 4096;

const versionOf = (record: InstalledPluginRecord, active: string | null): InstalledVersion => ({
  namespace: record.namespace,
  version: record.version,
  source: record.source,
  manifest: record.manifest,
  active: record.version === active,
});

export function createSurfaceStateOps(store: Store): SurfaceStateOps {
  return {
    async getInstalledVersion(namespace, version) {
      const active = (await store.getActivation(namespace))?.active ?? null;
      const wanted = version ?? active;
      if (wanted === null) return null;
      const record = await store.getInstalledPlugin(namespace, wanted);
      return record === null ? null : versionOf(record, active);
    },
    async listActiveVersions() {
      const out: InstalledVersion[] = [];
      for (const a of await store.listActivations()) {
        const record = await store.getInstalledPlugin(a.namespace, a.active);
        if (record !== null) out.push(versionOf(record, a.active));
      }
      return out;
    },
    async recordAudit(entry) {
      await store.appendAudit({
        agent: entry.agent ?? null,
        plugin: null,
        tool: null,
        conversationId: null,
        kind: "admin",
        action: entry.action,
        allowed: entry.error === null,
        success: entry.error === null,
        error: entry.error,
        durationMs: null,
        details: entry.details === undefined || entry.details === null ? null : { ...entry.details },
      });
    },
    conversationSettings: {
      get: (agent, conversationId, key) => store.getState(agent, conversationId, STATE_NAMESPACE, key),
      async set(agent, conversationId, key, value) {
        await store.setState(agent, conversationId, STATE_NAMESPACE, key, value, SETTING_MAX_BYTES);
      },
    },
    authorization: store.authServer,
  };
}
