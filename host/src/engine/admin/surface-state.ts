// What the host's surfaces keep or read besides the operations of the other admin modules:
// installed plugin versions (the console's diffs and registry views), the surfaces' own audit
// entries, the pages' single-use form tokens, small per-conversation settings of the MCP
// surface, and the authorization server's persistence (`host.authorization`).
// Invariants: a form token is consumed by the first take that presents it, and only for the
// binding it was minted for, on any replica (the store's atomic take); a surface's audit entry is
// kind `admin`, allowed and successful exactly when it carries no error code; conversation
// settings live under the host's own state namespace ("airlock"), never a plugin's.
import { randomBytes } from "node:crypto";
import type { InstalledVersion } from "../../contracts/admin-ops.ts";
import type { AirlockHost } from "../../contracts/host.ts";
import type { InstalledPluginRecord, Store } from "../../state/store/types.ts";

export type SurfaceStateOps = Pick<
  AirlockHost,
  | "getInstalledVersion"
  | "listActiveVersions"
  | "recordAudit"
  | "formTokens"
  | "conversationSettings"
  | "authorization"
>;

/** The conversation the host's own page tokens are kept under (no MCP or plugin conversation has this form). */
export const PAGES_CONVERSATION = "airlock:pages";
export const FORM_TOKEN_TTL_MS = 15 * 60 * 1000;
const STATE_NAMESPACE = "airlock";
const SETTING_MAX_BYTES = 4096;
const TOKEN_CAPS = {
  maxBytesPerArtifact: 1024,
  maxCountPerBinding: 10_000,
  maxBytesPerBinding: 10 * 1024 * 1024,
  maxCountGlobal: Number.MAX_SAFE_INTEGER,
  maxBytesGlobal: Number.MAX_SAFE_INTEGER,
};

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
    formTokens: {
      async mint(agent, binding) {
        const token = `ft_${randomBytes(24).toString("base64url")}`;
        const outcome = await store.putArtifact(
          {
            handle: token,
            agent,
            conversationId: PAGES_CONVERSATION,
            filename: binding,
            mime: "application/x-airlock-form-token",
            bytes: new Uint8Array(0),
            expiresAt: Date.now() + FORM_TOKEN_TTL_MS,
          },
          TOKEN_CAPS,
          Date.now(),
        );
        if (!outcome.ok) throw new Error(`could not keep a form token (${outcome.reason})`);
        return token;
      },
      async take(agent, binding, token) {
        if (typeof token !== "string" || !/^ft_[A-Za-z0-9_-]{32}$/.test(token)) return false;
        const record = await store.takeArtifact(token, agent, PAGES_CONVERSATION, Date.now());
        return record !== null && record.filename === binding;
      },
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
