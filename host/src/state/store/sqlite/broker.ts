// SQLite: brokered credentials (store/broker-types.ts). takeOAuthFlow is one DELETE … RETURNING,
// so a state is consumed at most once even across processes sharing the file; reserveModelCall
// upserts the period's row and bumps it under the budget in one BEGIN IMMEDIATE transaction.
import type { DatabaseSync } from "node:sqlite";
import type {
  BrokerStore,
  BudgetPeriod,
  ModelConnectionRecord,
  ModelGrantRecord,
  OAuthFlowRecord,
  OAuthTokenRecord,
} from "../broker-types.ts";
import { immediate } from "./tx.ts";

type Row = Record<string, unknown>;

export const flowFromRow = (r: Row): OAuthFlowRecord => ({
  state: String(r.state),
  agent: String(r.agent),
  subject: String(r.subject),
  provider: String(r.provider),
  plugin: String(r.plugin),
  verifier: String(r.verifier),
  redirectUri: String(r.redirect_uri),
  expiresAt: Number(r.expires_at),
});

export const tokenFromRow = (r: Row): OAuthTokenRecord => ({
  agent: String(r.agent),
  subject: String(r.subject),
  provider: String(r.provider),
  plugin: String(r.plugin),
  ciphertext: String(r.ciphertext),
  scopes: JSON.parse(String(r.scopes)) as string[],
  expiresAt: r.expires_at === null ? null : Number(r.expires_at),
  updatedAt: String(r.updated_at),
});

export const connectionFromRow = (r: Row): ModelConnectionRecord => ({
  name: String(r.name),
  baseUrl: String(r.base_url),
  model: String(r.model),
  keyCiphertext: String(r.key_ciphertext),
  updatedAt: String(r.updated_at),
});

export const grantFromRow = (r: Row): ModelGrantRecord => ({
  agent: String(r.agent),
  plugin: String(r.plugin),
  connection: String(r.connection),
  maxTokens: r.max_tokens === null ? null : Number(r.max_tokens),
  maxCalls: r.max_calls === null ? null : Number(r.max_calls),
  period: String(r.period) as BudgetPeriod,
  updatedAt: String(r.updated_at),
});

export function sqliteBroker(db: DatabaseSync): BrokerStore {
  return {
    async putOAuthFlow(f) {
      db.prepare(
        `INSERT INTO oauth_flows (state, agent, subject, provider, plugin, verifier, redirect_uri, expires_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      ).run(f.state, f.agent, f.subject, f.provider, f.plugin, f.verifier, f.redirectUri, f.expiresAt);
    },
    async takeOAuthFlow(state, now) {
      const row = db.prepare("DELETE FROM oauth_flows WHERE state = ? RETURNING *").get(state) as
        | Row
        | undefined;
      db.prepare("DELETE FROM oauth_flows WHERE expires_at <= ?").run(now);
      if (row === undefined) return null;
      const flow = flowFromRow(row);
      return flow.expiresAt > now ? flow : null;
    },
    async putOAuthToken(t) {
      db.prepare(
        `INSERT INTO oauth_tokens (agent, subject, provider, plugin, ciphertext, scopes, expires_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (agent, subject, provider) DO UPDATE SET plugin = excluded.plugin,
           ciphertext = excluded.ciphertext, scopes = excluded.scopes, expires_at = excluded.expires_at,
           updated_at = excluded.updated_at`,
      ).run(
        t.agent,
        t.subject,
        t.provider,
        t.plugin,
        t.ciphertext,
        JSON.stringify(t.scopes),
        t.expiresAt,
        t.updatedAt,
      );
    },
    async getOAuthToken(agent, subject, provider) {
      const r = db
        .prepare("SELECT * FROM oauth_tokens WHERE agent = ? AND subject = ? AND provider = ?")
        .get(agent, subject, provider) as Row | undefined;
      return r === undefined ? null : tokenFromRow(r);
    },
    async listOAuthTokens(agent) {
      return (
        db
          .prepare("SELECT * FROM oauth_tokens WHERE agent = ? ORDER BY provider, subject")
          .all(agent) as Row[]
      ).map(tokenFromRow);
    },
    async deleteOAuthToken(agent, subject, provider) {
      return (
        Number(
          db
            .prepare("DELETE FROM oauth_tokens WHERE agent = ? AND subject = ? AND provider = ?")
            .run(agent, subject, provider).changes,
        ) > 0
      );
    },

    async putModelConnection(c) {
      db.prepare(
        `INSERT INTO model_connections (name, base_url, model, key_ciphertext, updated_at) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (name) DO UPDATE SET base_url = excluded.base_url, model = excluded.model,
           key_ciphertext = excluded.key_ciphertext, updated_at = excluded.updated_at`,
      ).run(c.name, c.baseUrl, c.model, c.keyCiphertext, c.updatedAt);
    },
    async getModelConnection(name) {
      const r = db.prepare("SELECT * FROM model_connections WHERE name = ?").get(name) as Row | undefined;
      return r === undefined ? null : connectionFromRow(r);
    },
    async listModelConnections() {
      return (db.prepare("SELECT * FROM model_connections ORDER BY name").all() as Row[]).map(
        connectionFromRow,
      );
    },
    async deleteModelConnection(name) {
      return immediate(db, () => {
        db.prepare("DELETE FROM model_grants WHERE connection = ?").run(name);
        return Number(db.prepare("DELETE FROM model_connections WHERE name = ?").run(name).changes) > 0;
      });
    },
    async putModelGrant(g) {
      db.prepare(
        `INSERT INTO model_grants (agent, plugin, connection, max_tokens, max_calls, period, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (agent, plugin) DO UPDATE SET connection = excluded.connection,
           max_tokens = excluded.max_tokens, max_calls = excluded.max_calls, period = excluded.period,
           updated_at = excluded.updated_at`,
      ).run(g.agent, g.plugin, g.connection, g.maxTokens, g.maxCalls, g.period, g.updatedAt);
    },
    async getModelGrant(agent, plugin) {
      const r = db.prepare("SELECT * FROM model_grants WHERE agent = ? AND plugin = ?").get(agent, plugin) as
        | Row
        | undefined;
      return r === undefined ? null : grantFromRow(r);
    },
    async listModelGrants(agent) {
      return (
        db.prepare("SELECT * FROM model_grants WHERE agent = ? ORDER BY plugin").all(agent) as Row[]
      ).map(grantFromRow);
    },
    async deleteModelGrant(agent, plugin) {
      return (
        Number(
          db.prepare("DELETE FROM model_grants WHERE agent = ? AND plugin = ?").run(agent, plugin).changes,
        ) > 0
      );
    },
    async reserveModelCall(agent, plugin, period, maxCalls, maxTokens) {
      if (maxCalls === 0 || maxTokens === 0) return false;
      return immediate(db, () => {
        db.prepare(
          "INSERT OR IGNORE INTO model_usage (agent, plugin, period, calls, tokens) VALUES (?, ?, ?, 0, 0)",
        ).run(agent, plugin, period);
        const changed = db
          .prepare(
            `UPDATE model_usage SET calls = calls + 1
             WHERE agent = ? AND plugin = ? AND period = ?
               AND (? IS NULL OR calls < ?) AND (? IS NULL OR tokens < ?)`,
          )
          .run(agent, plugin, period, maxCalls, maxCalls, maxTokens, maxTokens).changes;
        return Number(changed) > 0;
      });
    },
    async addModelTokens(agent, plugin, period, tokens) {
      db.prepare(
        `INSERT INTO model_usage (agent, plugin, period, calls, tokens) VALUES (?, ?, ?, 0, ?)
         ON CONFLICT (agent, plugin, period) DO UPDATE SET tokens = tokens + excluded.tokens`,
      ).run(agent, plugin, period, tokens);
    },
    async getModelUsage(agent, plugin, period) {
      const r = db
        .prepare("SELECT * FROM model_usage WHERE agent = ? AND plugin = ? AND period = ?")
        .get(agent, plugin, period) as Row | undefined;
      return r === undefined
        ? null
        : { agent, plugin, period, calls: Number(r.calls), tokens: Number(r.tokens) };
    },
  };
}
