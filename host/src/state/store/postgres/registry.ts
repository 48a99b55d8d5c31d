// PostgreSQL: agents and their knowledge level, API tokens (hashes only), installed plugins,
// active/previous versions, and per-agent tool enablement.
// Invariants: activation and rollback are single statements (ON CONFLICT / UPDATE with old
// values), so replicas racing on them never lose the previous version; deleting an agent and
// everything it owns is one transaction; a knowledge level read back is parsed fail-closed.
import { agentFromRow, assertLevel, nowIso, tokenFromRow } from "../shared.ts";
import type { RegistryPart } from "../sqlite/registry.ts";
import type { InstalledPluginRecord, PluginActivation } from "../types.ts";
import type { Db, Row } from "./db.ts";

const plugin = (r: Row): InstalledPluginRecord => ({
  namespace: String(r.namespace),
  version: String(r.version),
  manifest: r.manifest as InstalledPluginRecord["manifest"],
  integrity: String(r.integrity),
  signer: r.signer === null ? null : String(r.signer),
  source: String(r.source),
  path: String(r.path),
  installedAt: String(r.installed_at),
});

const activation = (r: Row): PluginActivation => ({
  namespace: String(r.namespace),
  active: String(r.active),
  previous: r.previous === null ? null : String(r.previous),
  updatedAt: String(r.updated_at),
});

const AGENT_TABLES = [
  "tool_enablement",
  "secrets",
  "conversation_state",
  "artifacts",
  "knowledge_docs",
  "tokens",
  "oauth_flows",
  "oauth_tokens",
  "model_grants",
  "model_usage",
];

export function postgresRegistry(db: Db): RegistryPart {
  const one = async <T>(map: (r: Row) => T, sql: string, params: unknown[]): Promise<T | null> => {
    const [r] = await db.query(sql, params);
    return r === undefined ? null : map(r);
  };
  return {
    async ensureAgent(slug) {
      await db.exec(
        "INSERT INTO agents (slug, knowledge_level, created_at) VALUES ($1, 'read', $2) ON CONFLICT DO NOTHING",
        [slug, nowIso()],
      );
      return (await one(agentFromRow, "SELECT * FROM agents WHERE slug = $1", [slug]))!;
    },
    getAgent: (slug) => one(agentFromRow, "SELECT * FROM agents WHERE slug = $1", [slug]),
    async listAgents() {
      return (await db.query('SELECT * FROM agents ORDER BY slug COLLATE "C"')).map(agentFromRow);
    },
    async setKnowledgeLevel(slug, level) {
      await db.exec(
        `INSERT INTO agents (slug, knowledge_level, created_at) VALUES ($1, $2, $3)
         ON CONFLICT (slug) DO UPDATE SET knowledge_level = EXCLUDED.knowledge_level`,
        [slug, assertLevel(level), nowIso()],
      );
    },
    async deleteAgent(slug) {
      await db.tx(async (q) => {
        for (const t of AGENT_TABLES) await q(`DELETE FROM ${t} WHERE agent = $1`, [slug]);
        await q("DELETE FROM agents WHERE slug = $1", [slug]);
      });
    },

    async putToken(r, tokenHash) {
      await db.exec(
        "INSERT INTO tokens (id, token_hash, role, agent, label, created_at, token_prefix) VALUES ($1, $2, $3, $4, $5, $6, $7)",
        [r.id, tokenHash, r.role, r.agent, r.label, r.createdAt, r.prefix ?? null],
      );
    },
    findToken: (tokenHash) => one(tokenFromRow, "SELECT * FROM tokens WHERE token_hash = $1", [tokenHash]),
    async deleteToken(id) {
      await db.exec("DELETE FROM tokens WHERE id = $1", [id]);
    },
    async listTokens() {
      return (await db.query("SELECT * FROM tokens ORDER BY created_at, id", [])).map(tokenFromRow);
    },

    async putInstalledPlugin(p) {
      await db.exec(
        `INSERT INTO installed_plugins (namespace, version, manifest, integrity, signer, source, path, installed_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
         ON CONFLICT (namespace, version) DO UPDATE SET manifest = EXCLUDED.manifest, integrity = EXCLUDED.integrity,
           signer = EXCLUDED.signer, source = EXCLUDED.source, path = EXCLUDED.path, installed_at = EXCLUDED.installed_at`,
        [
          p.namespace,
          p.version,
          JSON.stringify(p.manifest),
          p.integrity,
          p.signer,
          p.source,
          p.path,
          p.installedAt,
        ],
      );
    },
    getInstalledPlugin: (ns, version) =>
      one(plugin, "SELECT * FROM installed_plugins WHERE namespace = $1 AND version = $2", [ns, version]),
    async listInstalledPlugins(ns) {
      const rows =
        ns === undefined
          ? await db.query('SELECT * FROM installed_plugins ORDER BY namespace COLLATE "C", installed_at')
          : await db.query("SELECT * FROM installed_plugins WHERE namespace = $1 ORDER BY installed_at", [
              ns,
            ]);
      return rows.map(plugin);
    },
    async deleteInstalledPlugin(ns, version) {
      await db.exec("DELETE FROM installed_plugins WHERE namespace = $1 AND version = $2", [ns, version]);
    },
    async activatePlugin(ns, version) {
      const [r] = await db.query(
        `INSERT INTO plugin_activations AS a (namespace, active, previous, updated_at) VALUES ($1, $2, NULL, $3)
         ON CONFLICT (namespace) DO UPDATE SET
           previous = CASE WHEN a.active = EXCLUDED.active THEN a.previous ELSE a.active END,
           active = EXCLUDED.active, updated_at = EXCLUDED.updated_at
         RETURNING *`,
        [ns, version, nowIso()],
      );
      return activation(r!);
    },
    rollbackPlugin: (ns) =>
      one(
        activation,
        `UPDATE plugin_activations SET active = previous, previous = active, updated_at = $2
         WHERE namespace = $1 AND previous IS NOT NULL RETURNING *`,
        [ns, nowIso()],
      ),
    getActivation: (ns) => one(activation, "SELECT * FROM plugin_activations WHERE namespace = $1", [ns]),
    async listActivations() {
      return (await db.query('SELECT * FROM plugin_activations ORDER BY namespace COLLATE "C"')).map(
        activation,
      );
    },
    async deleteActivation(ns) {
      await db.exec("DELETE FROM plugin_activations WHERE namespace = $1", [ns]);
    },

    async setToolEnabled(agentSlug, toolId, enabled) {
      if (enabled) {
        await db.exec("INSERT INTO tool_enablement (agent, tool_id) VALUES ($1, $2) ON CONFLICT DO NOTHING", [
          agentSlug,
          toolId,
        ]);
      } else {
        await db.exec("DELETE FROM tool_enablement WHERE agent = $1 AND tool_id = $2", [agentSlug, toolId]);
      }
    },
    async listEnabledTools(agentSlug) {
      const rows = await db.query(
        'SELECT tool_id FROM tool_enablement WHERE agent = $1 ORDER BY tool_id COLLATE "C"',
        [agentSlug],
      );
      return rows.map((r) => String(r.tool_id));
    },
    deleteToolEnablementForNamespace: (ns) =>
      db.exec("DELETE FROM tool_enablement WHERE starts_with(tool_id, $1)", [`${ns}:`]),
  };
}
