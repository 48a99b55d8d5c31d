// Pure helpers both store backends share, so that they agree on every rule the conformance
// suite checks: level parsing, audit sanitising and paging, search-term extraction, row shapes.
// Invariants: nothing here touches a database; an unknown knowledge level read back from a
// database maps to "none" (no access), never to a level that grants something.

import { storeError } from "./errors.ts";
import type {
  AgentKnowledgeLevel,
  AgentRecord,
  AuditInput,
  AuditQuery,
  AuditRecord,
  SecretRecord,
  TokenRecord,
} from "./types.ts";

export const KNOWLEDGE_LEVELS: readonly AgentKnowledgeLevel[] = ["none", "read", "write", "manage"];

/** A level as read from a database: anything this build does not know grants nothing. */
export function parseLevel(raw: unknown): AgentKnowledgeLevel {
  return KNOWLEDGE_LEVELS.includes(raw as AgentKnowledgeLevel) ? (raw as AgentKnowledgeLevel) : "none";
}

/** A level an operator asks to set: refused unless it is one this build knows. */
export function assertLevel(level: unknown): AgentKnowledgeLevel {
  if (KNOWLEDGE_LEVELS.includes(level as AgentKnowledgeLevel)) return level as AgentKnowledgeLevel;
  throw storeError(
    "AIRLOCK_STORE_INVALID_INPUT",
    `unknown knowledge level ${JSON.stringify(level)}; accepted: ${KNOWLEDGE_LEVELS.join(", ")}`,
  );
}

/** The last millisecond nowIso() formatted, and its text: calls within one millisecond share it. */
let lastMs = Number.NaN;
let lastIso = "";

export function nowIso(): string {
  const ms = Date.now();
  if (ms !== lastMs) {
    lastMs = ms;
    lastIso = new Date(ms).toISOString();
  }
  return lastIso;
}

const MAX_DETAIL_DEPTH = 8;

/**
 * Copies audit details as JSON-safe data, dropping binary values (Uint8Array, ArrayBuffer,
 * any typed array): artifact bytes must never reach the audit table, even if a caller errs.
 */
export function sanitizeDetails(
  details: Record<string, unknown> | null | undefined,
): Record<string, unknown> | null {
  if (details === null || details === undefined) return null;
  const out = sanitizeValue(details, 0);
  return typeof out === "object" && out !== null && !Array.isArray(out)
    ? (out as Record<string, unknown>)
    : null;
}

function sanitizeValue(value: unknown, depth: number): unknown {
  if (value instanceof ArrayBuffer || ArrayBuffer.isView(value)) return undefined;
  if (typeof value === "bigint") return value.toString();
  if (typeof value === "function" || typeof value === "symbol") return undefined;
  if (value === null || typeof value !== "object") return value;
  if (depth >= MAX_DETAIL_DEPTH) return "[depth limit]";
  if (Array.isArray(value)) {
    return value.map((v) => sanitizeValue(v, depth + 1)).filter((v) => v !== undefined);
  }
  const out: Record<string, unknown> = {};
  // own enumerable string keys, as Object.entries, without an array per key
  for (const k in value) {
    if (!Object.hasOwn(value, k)) continue;
    const clean = sanitizeValue((value as Record<string, unknown>)[k], depth + 1);
    if (clean !== undefined) out[k] = clean;
  }
  return out;
}

export const AUDIT_DEFAULT_LIMIT = 100;
export const AUDIT_MAX_LIMIT = 1000;

/** An audit query checked and filled in: its limit always set, its times canonical. */
export type NormalizedAuditQuery = Omit<AuditQuery, "limit"> & { limit: number };

/** Validates an audit query and turns its times into canonical ISO strings (they compare as text). */
export function normalizeAuditQuery(q: AuditQuery): NormalizedAuditQuery {
  const out: NormalizedAuditQuery = { limit: AUDIT_DEFAULT_LIMIT };
  if (q.limit !== undefined) {
    if (!Number.isInteger(q.limit) || q.limit < 1) {
      throw storeError("AIRLOCK_STORE_INVALID_INPUT", "audit limit must be a positive integer");
    }
    out.limit = Math.min(q.limit, AUDIT_MAX_LIMIT);
  }
  if (q.before !== undefined) {
    if (!Number.isInteger(q.before))
      throw storeError("AIRLOCK_STORE_INVALID_INPUT", "audit `before` must be an integer id");
    out.before = q.before;
  }
  if (q.agent !== undefined) out.agent = q.agent;
  if (q.plugin !== undefined) out.plugin = q.plugin;
  if (q.tool !== undefined) out.tool = q.tool;
  if (q.kind !== undefined) out.kind = q.kind;
  if (q.since !== undefined) out.since = isoTime(q.since, "since");
  if (q.until !== undefined) out.until = isoTime(q.until, "until");
  return out;
}

function isoTime(value: string, name: string): string {
  // nowIso()'s own text (an entry stamped this millisecond, as the audit journal does) is canonical
  if (value === lastIso && lastIso !== "") return value;
  const t = Date.parse(value);
  if (Number.isNaN(t))
    throw storeError("AIRLOCK_STORE_INVALID_INPUT", `audit \`${name}\` is not a date: ${value}`);
  return new Date(t).toISOString();
}

/** An audit entry ready to insert: time canonicalised, details sanitised and serialised. */
export function auditRow(entry: AuditInput): {
  at: string;
  details: string | null;
} {
  const at = entry.at === undefined ? nowIso() : isoTime(entry.at, "at");
  const details = sanitizeDetails(entry.details);
  return { at, details: details === null ? null : JSON.stringify(details) };
}

/** The words of a search query (letters and digits), at most 32; empty when there are none. */
export function searchTerms(query: string): string[] {
  return (query.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).slice(0, 32);
}

/** Milliseconds since the epoch as stored (SQLite INTEGER, PostgreSQL bigint that pg hands back as text). */
export function toMillis(raw: unknown): number {
  return typeof raw === "number" ? raw : Number(raw);
}

type Row = Record<string, unknown>;

/** Row → record mappers whose columns read the same in both dialects. */
export const agentFromRow = (r: Row): AgentRecord => ({
  slug: String(r.slug),
  knowledgeLevel: parseLevel(r.knowledge_level),
  createdAt: String(r.created_at),
});

export const tokenFromRow = (r: Row): TokenRecord => ({
  id: String(r.id),
  role: r.role === "operator" ? "operator" : "agent",
  agent: r.agent === null ? null : String(r.agent),
  label: String(r.label),
  createdAt: String(r.created_at),
  ...(r.token_prefix === null || r.token_prefix === undefined ? {} : { prefix: String(r.token_prefix) }),
});

export const secretFromRow = (r: Row): SecretRecord => ({
  agent: String(r.agent),
  key: String(r.key),
  ciphertext: String(r.ciphertext),
  updatedAt: String(r.updated_at),
});
