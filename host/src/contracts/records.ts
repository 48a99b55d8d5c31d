// The store's records as the host's API hands them out: agents, tokens, the audit trail, and
// the clients and grants of the host's own OAuth authorization server (surfaces/http/authz/).
// The store (host/src/state/store/types.ts) keeps them and re-exports these names; surfaces
// read them through AirlockHost without reaching the store's own module.
// Invariants: plain data only (they cross process and replica boundaries as JSON); a token
// record never carries the token or its hash, only the short `prefix` that tells tokens apart;
// an authorization grant record never carries a code or a token (only their kinds).
import type { KnowledgeLevel } from "@airlock/sdk";

export type AgentKnowledgeLevel = KnowledgeLevel | "none";

export interface AgentRecord {
  slug: string;
  /** "none" when an operator disabled knowledge access. New agents start at "read". */
  knowledgeLevel: AgentKnowledgeLevel;
  createdAt: string;
}

export type TokenRole = "operator" | "agent";

export interface TokenRecord {
  id: string;
  role: TokenRole;
  /** The agent an agent token acts for; null for operator tokens. */
  agent: string | null;
  label: string;
  createdAt: string;
  /**
   * The first characters of the token (its role prefix and 4 of its random characters, e.g.
   * `alk_ag_Xy3q`), kept so a listing can tell tokens apart; absent for tokens issued before it
   * was kept. Never enough to use or guess the token (4 of 43 random characters).
   */
  prefix?: string;
}

export interface AuditRecord {
  id: number;
  at: string;
  agent: string | null;
  plugin: string | null;
  tool: string | null;
  conversationId: string | null;
  /** "capability" (a bridge call), "plugin" (ctx.audit.log), "tool" (a tool call), "admin" (an operator action). */
  kind: "capability" | "plugin" | "tool" | "admin";
  action: string;
  allowed: boolean;
  success: boolean | null;
  error: string | null;
  durationMs: number | null;
  details: Record<string, unknown> | null;
}

export type AuditInput = Omit<AuditRecord, "id" | "at"> & { at?: string };

export interface AuditQuery {
  agent?: string;
  plugin?: string;
  tool?: string;
  kind?: AuditRecord["kind"];
  since?: string;
  until?: string;
  limit?: number;
  /** Return entries with id < before (paging, newest first). */
  before?: number;
}

/** A client of the host's authorization server (RFC 7591, public). */
export interface AuthClientRecord {
  /** `alc_…`, issued at registration. */
  id: string;
  /** The client's `client_name` (shown on the consent page), or "" when it gave none. */
  name: string;
  /** Exact redirect URIs; an authorization request must name one of them verbatim. */
  redirectUris: string[];
  createdAt: string;
}

/** One consent: a client, an agent and that agent's MCP URL as the audience. */
export interface AuthGrantRecord {
  /** `alg_…`; every token of one consent (the refresh family) carries it. */
  id: string;
  clientId: string;
  clientName: string;
  agent: string;
  /** The audience: the agent's MCP URL, as the client sent it in `resource`. */
  resource: string;
  createdAt: string;
  /** When the operator, the client or reuse detection revoked the grant; null while active. */
  revokedAt: string | null;
}

/** The secrets of a grant, kept by the store only as hashes. */
export type AuthSecretKind = "code" | "access" | "refresh";
