// The contract of the host operations the surfaces need instead of the store (AirlockHost in
// contracts/host.ts carries them): tokens as listed, an agent's removal, installed plugin
// versions, the surfaces' own audit entries, host-owned conversation state, and the
// authorization server's persistence (`host.authorization`).
// Invariants: nothing here carries a token's value or hash, or a secret's value; every type is
// plain data (JSON-safe); this file imports only the SDK's types.
import type { PluginManifest } from "@airlock/sdk/manifest";
import type { AuthClientRecord, AuthGrantRecord, AuthSecretKind } from "./records.ts";

export type { AuthClientRecord, AuthGrantRecord, AuthSecretKind };

/** A token as listed (GET /api/tokens): never its value or its hash. */
export interface TokenView {
  id: string;
  role: "operator" | "agent";
  agent: string | null;
  label: string;
  createdAt: string;
  /** The token's first characters (role prefix + 4, e.g. alk_ag_Xy3q); its role prefix only for old tokens. */
  prefix: string;
}

/** What deleting an agent removes (shown before, answered after). */
export interface AgentRemoval {
  agent: string;
  tokens: TokenView[];
  /** Enabled tool ids, sorted. */
  enabledTools: string[];
  /** Secret keys set, sorted. */
  secrets: string[];
  knowledgeDocuments: number;
  pendingApprovals: number;
}

/** One installed version of a plugin, as stored (its files' location left out). */
export interface InstalledVersion {
  namespace: string;
  version: string;
  /** Where it came from: `file:…`, or the registry tarball URL. */
  source: string;
  manifest: PluginManifest;
  /** Whether it is the namespace's active version. */
  active: boolean;
}

/**
 * An audit entry a surface writes for something only it sees (a console sign-in, a refused page,
 * an authorization-server step): kind `admin`, allowed and successful when `error` is null.
 */
export interface SurfaceAuditEntry {
  action: string;
  error: string | null;
  agent?: string | null;
  details?: Record<string, unknown> | null;
}

/** Small values the host's surfaces keep per agent and conversation (e.g. an MCP session's log level). */
export interface ConversationSettings {
  get(agent: string, conversationId: string, key: string): Promise<string | null>;
  /** At most 4096 bytes. */
  set(agent: string, conversationId: string, key: string, value: string): Promise<void>;
}

// The host's own OAuth 2.1 authorization server's persistence (host/src/surfaces/http/authz/):
// registered clients (RFC 7591, public), grants (one per consent: a client, an agent and that
// agent's MCP URL as the audience) and the grant's secrets — authorization codes, access tokens
// and refresh tokens — kept only as sha256 hashes.
// Invariants: no clear secret crosses this interface; useSecret marks a secret used at most once
// (one conditional UPDATE, so racing replicas cannot both redeem one code or one refresh token);
// a revoked grant stays revoked (revokeGrant never clears revokedAt); findSecret answers nothing
// past its expiry.

export interface AuthSecretRecord {
  /** sha256 (hex) of the clear secret. */
  hash: string;
  kind: AuthSecretKind;
  grantId: string;
  /** What a code carries until it is redeemed (client, redirect URI, PKCE challenge…); else null. */
  data: Record<string, string> | null;
  /** ms since the epoch. */
  expiresAt: number;
  /** ms since the epoch when it was redeemed (codes, refresh tokens); null while unused. */
  usedAt: number | null;
}

export interface AuthServerStore {
  putClient(client: AuthClientRecord): Promise<void>;
  getClient(id: string): Promise<AuthClientRecord | null>;
  /** How many clients are registered (the registration cap counts them). */
  countClients(): Promise<number>;
  putGrant(grant: AuthGrantRecord): Promise<void>;
  getGrant(id: string): Promise<AuthGrantRecord | null>;
  /** The agent's grants, newest first, revoked ones included. */
  listGrants(agent: string): Promise<AuthGrantRecord[]>;
  /** Revokes an active grant; true when this call revoked it (false: unknown or already revoked). */
  revokeGrant(id: string, at: string): Promise<boolean>;
  putSecret(secret: AuthSecretRecord): Promise<void>;
  /** The secret of this hash while it has not expired at `now` (used or not); null otherwise. */
  findSecret(hash: string, now: number): Promise<AuthSecretRecord | null>;
  /** Marks an unexpired, unused secret used at `now`; true for the one call that did. */
  useSecret(hash: string, now: number): Promise<boolean>;
  /** Deletes secrets expired at `now`; returns how many. */
  pruneSecrets(now: number): Promise<number>;
}
