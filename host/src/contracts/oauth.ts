// Brokered credentials as the host's API exposes them (docs/oauth.md): AirlockHost.oauth
// (connections, connect links, disconnect, the two flow steps the public /oauth routes drive)
// and AirlockHost.models (connections to model providers, their grants to an agent's plugin
// with a budget, and the usage counted against it). engine/oauth/ implements both.
// Invariants: no view ever carries a token, a client secret or a provider key (a connection
// says `keySet`); a grant names an existing connection; an end user (`subject`) "" is the agent
// itself.

/** Who a connection is for: an agent (or one of its end users), a plugin and its provider. */
export interface ConnectTarget {
  agent: string;
  subject: string;
  plugin: string;
  provider: string;
}

export interface OAuthConnectionView {
  provider: string;
  /** "" for the agent itself, else the end user it is for. */
  subject: string;
  plugin: string;
  scopes: string[];
  expiresAt: string | null;
  refreshable: boolean;
  updatedAt: string;
}

export interface OAuthAdmin {
  /** The URL people's browsers reach this host at (connect links and the callback are built on it). */
  publicUrl(): string | undefined;
  /** The operator's own public URL (`--public-url`, AIRLOCK_PUBLIC_URL), never the adopted one. */
  configuredPublicUrl(): string | undefined;
  /** Sets the public URL unless one was configured (the admin server calls it once listening). */
  adoptPublicUrl(url: string): void;
  connections(agent: string): Promise<OAuthConnectionView[]>;
  connectLink(agent: string, plugin: string, provider: string, subject?: string): Promise<string>;
  disconnect(agent: string, provider: string, subject?: string): Promise<boolean>;
  /** GET /oauth/connect/:ticket → the provider's authorization URL to redirect to. */
  begin(ticket: string): Promise<string>;
  /** GET /oauth/callback → who got connected. */
  complete(query: Record<string, string | undefined>): Promise<ConnectTarget>;
}

/** The period a model grant's budget counts over. */
export type BudgetPeriod = "day" | "month" | "total";

export interface ModelConnectionView {
  name: string;
  baseUrl: string;
  model: string;
  keySet: true;
  updatedAt: string;
}

export interface ModelGrantView {
  plugin: string;
  connection: string;
  maxTokens: number | null;
  maxCalls: number | null;
  period: BudgetPeriod;
  /** Usage in the current period. */
  used: { period: string; calls: number; tokens: number };
}

export interface ModelsAdmin {
  setConnection(input: {
    name: string;
    baseUrl: string;
    model: string;
    apiKey: string;
  }): Promise<ModelConnectionView>;
  connections(): Promise<ModelConnectionView[]>;
  removeConnection(name: string): Promise<boolean>;
  grant(
    agent: string,
    plugin: string,
    input: {
      connection: string;
      maxTokens?: number | null | undefined;
      maxCalls?: number | null | undefined;
      period?: BudgetPeriod | undefined;
    },
  ): Promise<ModelGrantView>;
  revoke(agent: string, plugin: string): Promise<boolean>;
  grants(agent: string): Promise<ModelGrantView[]>;
}
