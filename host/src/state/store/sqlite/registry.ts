// SQLite: agents and their knowledge level, API tokens (hashes only), and per-agent tool
// enablement; installed plugins and their active/previous versions are plugin-versions.ts's.
// Invariants: multi-row changes (activation swaps, deleting an agent and everything it owns)
// run in one BEGIN IMMEDIATE transaction; a knowledge level read back is parsed fail-closed.
import type { DatabaseSync } from "node:sqlite";
import { agentFromRow, assertLevel, nowIso, tokenFromRow } from "../shared.ts";
import type { AgentRecord, Store } from "../types.ts";
import { type PluginVersionsPart, sqlitePluginVersions } from "./plugin-versions.ts";
import { immediate } from "./tx.ts";

type Row = Record<string, unknown>;

export type RegistryPart = PluginVersionsPart &
  Pick<
    Store,
    | "ensureAgent"
    | "getAgent"
    | "listAgents"
    | "setKnowledgeLevel"
    | "deleteAgent"
    | "putToken"
    | "findToken"
    | "deleteToken"
    | "listTokens"
    | "setToolEnabled"
    | "listEnabledTools"
    | "deleteToolEnablementForNamespace"
  >;

/** Tables holding rows owned by one agent, cleared when the agent is deleted (audit is kept). */
const AGENT_TABLES = [
  "tool_enablement",
  "secrets",
  "conversation_state",
  "artifacts",
  "oauth_flows",
  "oauth_tokens",
  "model_grants",
  "model_usage",
] as const;

export function sqliteRegistry(db: DatabaseSync): RegistryPart {
  const getAgentSync = (slug: string): AgentRecord | null => {
    const r = db.prepare("SELECT * FROM agents WHERE slug = ?").get(slug) as Row | undefined;
    return r === undefined ? null : agentFromRow(r);
  };
  const insertAgent = (slug: string) =>
    db
      .prepare(
        "INSERT INTO agents (slug, knowledge_level, created_at) VALUES (?, 'read', ?) ON CONFLICT DO NOTHING",
      )
      .run(slug, nowIso());

  return {
    ...sqlitePluginVersions(db),
    async ensureAgent(slug) {
      insertAgent(slug);
      return getAgentSync(slug)!;
    },
    async getAgent(slug) {
      return getAgentSync(slug);
    },
    async listAgents() {
      return (db.prepare("SELECT * FROM agents ORDER BY slug").all() as Row[]).map(agentFromRow);
    },
    async setKnowledgeLevel(slug, level) {
      const valid = assertLevel(level);
      immediate(db, () => {
        insertAgent(slug);
        db.prepare("UPDATE agents SET knowledge_level = ? WHERE slug = ?").run(valid, slug);
      });
    },
    async deleteAgent(slug) {
      immediate(db, () => {
        for (const t of AGENT_TABLES) db.prepare(`DELETE FROM ${t} WHERE agent = ?`).run(slug);
        const seqs = db.prepare("SELECT seq FROM knowledge_docs WHERE agent = ?").all(slug) as Row[];
        for (const s of seqs) db.prepare("DELETE FROM knowledge_fts WHERE rowid = ?").run(Number(s.seq));
        db.prepare("DELETE FROM knowledge_docs WHERE agent = ?").run(slug);
        db.prepare("DELETE FROM tokens WHERE agent = ?").run(slug);
        db.prepare("DELETE FROM agents WHERE slug = ?").run(slug);
      });
    },

    async putToken(record, tokenHash) {
      db.prepare(
        "INSERT INTO tokens (id, token_hash, role, agent, label, created_at, token_prefix) VALUES (?, ?, ?, ?, ?, ?, ?)",
      ).run(
        record.id,
        tokenHash,
        record.role,
        record.agent,
        record.label,
        record.createdAt,
        record.prefix ?? null,
      );
    },
    async findToken(tokenHash) {
      const r = db.prepare("SELECT * FROM tokens WHERE token_hash = ?").get(tokenHash) as Row | undefined;
      return r === undefined ? null : tokenFromRow(r);
    },
    async deleteToken(id) {
      db.prepare("DELETE FROM tokens WHERE id = ?").run(id);
    },
    async listTokens() {
      const rows = db.prepare("SELECT * FROM tokens ORDER BY created_at, id").all() as Row[];
      return rows.map(tokenFromRow);
    },

    async setToolEnabled(agentSlug, toolId, enabled) {
      if (enabled) {
        db.prepare("INSERT INTO tool_enablement (agent, tool_id) VALUES (?, ?) ON CONFLICT DO NOTHING").run(
          agentSlug,
          toolId,
        );
      } else {
        db.prepare("DELETE FROM tool_enablement WHERE agent = ? AND tool_id = ?").run(agentSlug, toolId);
      }
    },
    async listEnabledTools(agentSlug) {
      const rows = db
        .prepare("SELECT tool_id FROM tool_enablement WHERE agent = ? ORDER BY tool_id")
        .all(agentSlug);
      return (rows as Row[]).map((r) => String(r.tool_id));
    },
    async deleteToolEnablementForNamespace(namespace) {
      const prefix = `${namespace}:`;
      const r = db
        .prepare("DELETE FROM tool_enablement WHERE substr(tool_id, 1, ?) = ?")
        .run(prefix.length, prefix);
      return Number(r.changes);
    },
  };
}
