// The policy and validation rules of ctx.knowledge, kept apart from the capability wiring so
// they read as a list: levels, writer attribution, argument shapes, caps and their defaults.
// Defaults (DEFAULT_KNOWLEDGE_LIMITS): 256 KiB of UTF-8 per document, 1000 documents per agent,
// search returns 10 hits by default (at most 50), list 50 (at most 200), queries ≤ 1000 chars.
// Invariants: an unknown or absent level ranks 0 (grants nothing); the writer is derived from
// the grant's canonical tool id and nothing a tool passes can change it.
import type { KnowledgeLevel } from "@airlock/sdk";
import { parseToolId, READABLE_NAME_RULE, unreadableCharacter } from "@airlock/sdk";
import { storeError } from "../../state/store/errors.ts";
import type { CallGrant } from "../bridge/types.ts";

export interface KnowledgeLimits {
  maxDocBytes: number;
  maxDocsPerAgent: number;
  defaultSearchLimit: number;
  maxSearchLimit: number;
  defaultListLimit: number;
  maxListLimit: number;
  maxQueryChars: number;
}

export const DEFAULT_KNOWLEDGE_LIMITS: Readonly<KnowledgeLimits> = {
  maxDocBytes: 256 * 1024,
  maxDocsPerAgent: 1000,
  defaultSearchLimit: 10,
  maxSearchLimit: 50,
  defaultListLimit: 50,
  maxListLimit: 200,
  maxQueryChars: 1000,
};

const RANK: Readonly<Record<KnowledgeLevel, number>> = { read: 1, write: 2, manage: 3 };

/** 0 for no access (null or a level this build does not know), else read 1 < write 2 < manage 3. */
export function levelRank(level: unknown): number {
  return typeof level === "string" && Object.hasOwn(RANK, level) ? RANK[level as KnowledgeLevel] : 0;
}

/** Who a call writes as: `plugin:<namespace>` for a namespaced tool, else `agent:<slug>`. */
export function writerOf(grant: Pick<CallGrant, "toolId" | "agent">): string {
  const parsed = parseToolId(grant.toolId);
  return parsed === undefined ? `agent:${grant.agent}` : `plugin:${parsed.namespace}`;
}

function invalid(why: string): never {
  throw storeError("AIRLOCK_KNOWLEDGE_INVALID", `ctx.knowledge: ${why}`);
}

const ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
const MIME_PATTERN =
  /^[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}\/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}(;[ -~]{0,200})?$/;

export function idArg(value: unknown): string {
  if (typeof value !== "string" || !ID_PATTERN.test(value)) {
    invalid("a document id is 1–128 letters, digits, '.', '_' or '-', starting with a letter or digit");
  }
  return value;
}

/** Content is text; NUL is refused because no backend stores it in a text column. */
export function contentArg(value: unknown): string {
  if (typeof value !== "string") invalid("content must be a string");
  if (value.includes("\0")) invalid("content must not contain NUL characters");
  return value;
}

export interface WriteInput {
  id?: string;
  filename: string;
  content: string;
  mime: string;
}

export function writeArg(value: unknown): WriteInput {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    invalid("write takes {id?, filename, content, mime?}");
  }
  const v = value as Record<string, unknown>;
  const { filename, mime } = v;
  if (typeof filename !== "string" || filename.length === 0 || filename.length > 255) {
    invalid("filename must be 1 to 255 characters");
  }
  const unreadable = unreadableCharacter(filename);
  if (unreadable !== null) invalid(`filename holds ${unreadable}; a file name has ${READABLE_NAME_RULE}`);
  if (mime !== undefined && mime !== null && (typeof mime !== "string" || !MIME_PATTERN.test(mime))) {
    invalid("mime must be a media type such as text/markdown");
  }
  const out: WriteInput = {
    filename,
    content: contentArg(v.content),
    mime: (mime as string | undefined) ?? "text/plain",
  };
  if (v.id !== undefined && v.id !== null) out.id = idArg(v.id);
  return out;
}

/** A `{limit}` option clamped to [1, max], the default when absent. */
export function limitArg(options: unknown, fallback: number, max: number): number {
  if (options === undefined || options === null) return fallback;
  if (typeof options !== "object") invalid("options must be an object");
  const limit = (options as { limit?: unknown }).limit;
  if (limit === undefined || limit === null) return fallback;
  if (typeof limit !== "number" || !Number.isInteger(limit) || limit < 1)
    invalid("limit must be a positive integer");
  return Math.min(limit, max);
}

export function queryArg(value: unknown, maxChars: number): string {
  if (typeof value !== "string") invalid("search takes a query string");
  if (value.length > maxChars) invalid(`a query has at most ${maxChars} characters`);
  return value;
}
