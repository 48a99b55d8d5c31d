// The store's records as the host's API hands them out: agents, tokens and the audit trail.
// The store (host/src/state/store/types.ts) keeps them and re-exports these names; surfaces
// read them through AirlockHost without reaching the store's own module.
// Invariants: plain data only (they cross process and replica boundaries as JSON); a token
// record never carries the token or its hash, only the short `prefix` that tells tokens apart.
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
