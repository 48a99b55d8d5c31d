// PostgreSQL: brokered credentials (store/broker-types.ts). takeOAuthFlow is one
// DELETE … RETURNING (row locking makes one replica win a replayed state); reserveModelCall is
// one upsert whose UPDATE arm carries the budget condition, so racing replicas never pass a
// call budget.
import type { BrokerStore } from "../broker-types.ts";
import { connectionFromRow, flowFromRow, grantFromRow, tokenFromRow } from "../sqlite/broker.ts";
import type { Db } from "./db.ts";

export function postgresBroker(db: Db): BrokerStore {
  return {
    async putOAuthFlow(f) {
      await db.exec(
        `INSERT INTO oauth_flows (state, agent, subject, provider, plugin, verifier, redirect_uri, expires_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
        [f.state, f.agent, f.subject, f.provider, f.plugin, f.verifier, f.redirectUri, f.expiresAt],
      );
    },
    async takeOAuthFlow(state, now) {
      const [row] = await db.query("DELETE FROM oauth_flows WHERE state = $1 RETURNING *", [state]);
      await db.exec("DELETE FROM oauth_flows WHERE expires_at <= $1", [now]);
      if (row === undefined) return null;
      const flow = flowFromRow(row);
      return flow.expiresAt > now ? flow : null;
    },
    async putOAuthToken(t) {
      await db.exec(
        `INSERT INTO oauth_tokens (agent, subject, provider, plugin, ciphertext, scopes, expires_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
         ON CONFLICT (agent, subject, provider) DO UPDATE SET plugin = EXCLUDED.plugin,
           ciphertext = EXCLUDED.ciphertext, scopes = EXCLUDED.scopes, expires_at = EXCLUDED.expires_at,
           updated_at = EXCLUDED.updated_at`,
        [
          t.agent,
          t.subject,
          t.provider,
          t.plugin,
          t.ciphertext,
          JSON.stringify(t.scopes),
          t.expiresAt,
          t.updatedAt,
        ],
      );
    },
    async getOAuthToken(agent, subject, provider) {
      const [r] = await db.query(
        "SELECT * FROM oauth_tokens WHERE agent = $1 AND subject = $2 AND provider = $3",
        [agent, subject, provider],
      );
      return r === undefined ? null : tokenFromRow(r);
    },
    async listOAuthTokens(agent) {
      return (
        await db.query(
          'SELECT * FROM oauth_tokens WHERE agent = $1 ORDER BY provider COLLATE "C", subject COLLATE "C"',
          [agent],
        )
      ).map(tokenFromRow);
    },
    async deleteOAuthToken(agent, subject, provider) {
      return (
        (await db.exec("DELETE FROM oauth_tokens WHERE agent = $1 AND subject = $2 AND provider = $3", [
          agent,
          subject,
          provider,
        ])) > 0
      );
    },

    async putModelConnection(c) {
      await db.exec(
        `INSERT INTO model_connections (name, base_url, model, key_ciphertext, updated_at) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (name) DO UPDATE SET base_url = EXCLUDED.base_url, model = EXCLUDED.model,
           key_ciphertext = EXCLUDED.key_ciphertext, updated_at = EXCLUDED.updated_at`,
        [c.name, c.baseUrl, c.model, c.keyCiphertext, c.updatedAt],
      );
    },
    async getModelConnection(name) {
      const [r] = await db.query("SELECT * FROM model_connections WHERE name = $1", [name]);
      return r === undefined ? null : connectionFromRow(r);
    },
    async listModelConnections() {
      return (await db.query('SELECT * FROM model_connections ORDER BY name COLLATE "C"')).map(
        connectionFromRow,
      );
    },
    async deleteModelConnection(name) {
      return db.tx(async (q) => {
        await q("DELETE FROM model_grants WHERE connection = $1", [name]);
        return ((await q("DELETE FROM model_connections WHERE name = $1", [name])).rowCount ?? 0) > 0;
      });
    },
    async putModelGrant(g) {
      await db.exec(
        `INSERT INTO model_grants (agent, plugin, connection, max_tokens, max_calls, period, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7)
         ON CONFLICT (agent, plugin) DO UPDATE SET connection = EXCLUDED.connection,
           max_tokens = EXCLUDED.max_tokens, max_calls = EXCLUDED.max_calls, period = EXCLUDED.period,
           updated_at = EXCLUDED.updated_at`,
        [g.agent, g.plugin, g.connection, g.maxTokens, g.maxCalls, g.period, g.updatedAt],
      );
    },
    async getModelGrant(agent, plugin) {
      const [r] = await db.query("SELECT * FROM model_grants WHERE agent = $1 AND plugin = $2", [
        agent,
        plugin,
      ]);
      return r === undefined ? null : grantFromRow(r);
    },
    async listModelGrants(agent) {
      return (
        await db.query('SELECT * FROM model_grants WHERE agent = $1 ORDER BY plugin COLLATE "C"', [agent])
      ).map(grantFromRow);
    },
    async deleteModelGrant(agent, plugin) {
      return (
        (await db.exec("DELETE FROM model_grants WHERE agent = $1 AND plugin = $2", [agent, plugin])) > 0
      );
    },
    async reserveModelCall(agent, plugin, period, maxCalls, maxTokens) {
      if (maxCalls === 0 || maxTokens === 0) return false;
      const admitted = await db.exec(
        `INSERT INTO model_usage AS u (agent, plugin, period, calls, tokens) VALUES ($1, $2, $3, 1, 0)
         ON CONFLICT (agent, plugin, period) DO UPDATE SET calls = u.calls + 1
         WHERE ($4::bigint IS NULL OR u.calls < $4::bigint) AND ($5::bigint IS NULL OR u.tokens < $5::bigint)`,
        [agent, plugin, period, maxCalls, maxTokens],
      );
      return admitted > 0;
    },
    async addModelTokens(agent, plugin, period, tokens) {
      await db.exec(
        `INSERT INTO model_usage AS u (agent, plugin, period, calls, tokens) VALUES ($1, $2, $3, 0, $4)
         ON CONFLICT (agent, plugin, period) DO UPDATE SET tokens = u.tokens + EXCLUDED.tokens`,
        [agent, plugin, period, tokens],
      );
    },
    async getModelUsage(agent, plugin, period) {
      const [r] = await db.query(
        "SELECT * FROM model_usage WHERE agent = $1 AND plugin = $2 AND period = $3",
        [agent, plugin, period],
      );
      return r === undefined
        ? null
        : { agent, plugin, period, calls: Number(r.calls), tokens: Number(r.tokens) };
    },
  };
}
