// The store's part for brokered credentials: OAuth authorization flows in progress (single-use
// state), OAuth tokens per (agent, subject, provider), the operator's model connections, their
// grants to (agent, plugin) and the usage counted against each grant's budget.
// Invariants: token and key material crosses this interface only as vault ciphertext;
// takeOAuthFlow hands a flow out at most once (a replayed or expired state gets null);
// reserveModelCall admits a call only while the period's counters are under the budget, in one
// atomic statement, so replicas racing on one grant never pass a call budget.
import type { BudgetPeriod } from "../../contracts/oauth.ts";

export interface OAuthFlowRecord {
  /** The `state` parameter: 32 random bytes, base64url. */
  state: string;
  agent: string;
  /** The end user of the agent the connection is for; "" for the agent itself. */
  subject: string;
  provider: string;
  /** The plugin whose declaration of the provider the flow follows. */
  plugin: string;
  /** The PKCE code verifier, as vault ciphertext. */
  verifier: string;
  /** The exact redirect URI sent at authorization (sent again at the token request). */
  redirectUri: string;
  /** ms since the epoch. */
  expiresAt: number;
}

export interface OAuthTokenRecord {
  agent: string;
  subject: string;
  provider: string;
  plugin: string;
  /** Vault ciphertext of `{access, refresh?}` as JSON. */
  ciphertext: string;
  scopes: string[];
  /** ms since the epoch, or null when the provider gave no lifetime. */
  expiresAt: number | null;
  updatedAt: string;
}

export interface ModelConnectionRecord {
  name: string;
  /** An OpenAI-compatible API root, e.g. `https://api.openai.com/v1`. */
  baseUrl: string;
  model: string;
  /** Vault ciphertext of the provider key. */
  keyCiphertext: string;
  updatedAt: string;
}

export type { BudgetPeriod };

export interface ModelGrantRecord {
  agent: string;
  plugin: string;
  connection: string;
  /** Tokens (input + output) per period; null: unbounded. */
  maxTokens: number | null;
  /** Calls per period; null: unbounded. */
  maxCalls: number | null;
  period: BudgetPeriod;
  updatedAt: string;
}

export interface ModelUsageRecord {
  agent: string;
  plugin: string;
  /** `2026-12-01` (day), `2026-12` (month) or `total`. */
  period: string;
  calls: number;
  tokens: number;
}

export interface BrokerStore {
  putOAuthFlow(flow: OAuthFlowRecord): Promise<void>;
  /** Deletes and returns the flow when it exists and has not expired at `now`; null otherwise. */
  takeOAuthFlow(state: string, now: number): Promise<OAuthFlowRecord | null>;
  putOAuthToken(token: OAuthTokenRecord): Promise<void>;
  getOAuthToken(agent: string, subject: string, provider: string): Promise<OAuthTokenRecord | null>;
  listOAuthTokens(agent: string): Promise<OAuthTokenRecord[]>;
  deleteOAuthToken(agent: string, subject: string, provider: string): Promise<boolean>;

  putModelConnection(connection: ModelConnectionRecord): Promise<void>;
  getModelConnection(name: string): Promise<ModelConnectionRecord | null>;
  listModelConnections(): Promise<ModelConnectionRecord[]>;
  /** Deletes the connection and every grant of it. */
  deleteModelConnection(name: string): Promise<boolean>;
  putModelGrant(grant: ModelGrantRecord): Promise<void>;
  getModelGrant(agent: string, plugin: string): Promise<ModelGrantRecord | null>;
  listModelGrants(agent: string): Promise<ModelGrantRecord[]>;
  deleteModelGrant(agent: string, plugin: string): Promise<boolean>;
  /**
   * Counts one call into the period when the period's calls stay ≤ maxCalls and its tokens are
   * under maxTokens (nulls: unbounded); answers whether the call was admitted.
   */
  reserveModelCall(
    agent: string,
    plugin: string,
    period: string,
    maxCalls: number | null,
    maxTokens: number | null,
  ): Promise<boolean>;
  addModelTokens(agent: string, plugin: string, period: string, tokens: number): Promise<void>;
  getModelUsage(agent: string, plugin: string, period: string): Promise<ModelUsageRecord | null>;
}
