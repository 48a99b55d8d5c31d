// Operator and agent tokens. A token is 32 random bytes in base64url behind a recognisable
// prefix (`alk_op_` for operators, `alk_ag_` for agents) so a leaked one can be spotted by
// secret scanners. Invariants: only the token's sha256 (hex) is stored; the clear token is
// returned once, at issue time; `authenticate` never throws on a malformed or unknown token.
import { createHash, randomBytes } from "node:crypto";
import { AirlockError } from "@airlock/sdk";
import type { Store, TokenRecord, TokenRole } from "../store/types.ts";
import { AUTH_ERRORS } from "./errors.ts";

export const TOKEN_PREFIXES: Readonly<Record<TokenRole, string>> = {
  operator: "alk_op_",
  agent: "alk_ag_",
};

const TOKEN_BODY = /^[A-Za-z0-9_-]{43}$/;

function authError(code: keyof typeof AUTH_ERRORS, message: string): AirlockError {
  return new AirlockError(code, message, { status: AUTH_ERRORS[code].status });
}

/** sha256 of the whole token (prefix included), hex: the only form that is stored. */
export function hashToken(token: string): string {
  return createHash("sha256").update(token, "utf8").digest("hex");
}

/** A fresh token for a role: prefix + 32 random bytes in base64url (43 chars). */
export function generateToken(role: TokenRole): string {
  return TOKEN_PREFIXES[role] + randomBytes(32).toString("base64url");
}

/** The role a token claims by its prefix, or null when it is not shaped like an Airlock token. */
export function tokenRole(token: string): TokenRole | null {
  for (const role of ["operator", "agent"] as const) {
    const prefix = TOKEN_PREFIXES[role];
    if (token.startsWith(prefix) && TOKEN_BODY.test(token.slice(prefix.length))) return role;
  }
  return null;
}

/** Characters of the random part a listing shows after the role prefix. */
export const DISPLAY_PREFIX_CHARS = 4;

/** What a listing may show of a token: its role prefix and its first 4 random characters. */
export function tokenDisplayPrefix(token: string): string {
  const role = tokenRole(token);
  const cut = role === null ? 0 : TOKEN_PREFIXES[role].length + DISPLAY_PREFIX_CHARS;
  return token.slice(0, cut);
}

export interface IssueTokenInput {
  role: TokenRole;
  agent?: string;
  label?: string;
}

/** Issues a token and stores its hash. The agent, when given, must already exist. */
export async function issueToken(
  store: Store,
  input: IssueTokenInput,
): Promise<{ id: string; token: string; record: TokenRecord }> {
  if (input.role !== "operator" && input.role !== "agent") {
    throw authError("AIRLOCK_AUTH_INVALID_ROLE", `unknown token role "${String(input.role)}"`);
  }
  if (input.role === "agent") {
    if (input.agent === undefined)
      throw authError("AIRLOCK_AUTH_AGENT_REQUIRED", "an agent token needs an agent");
    if ((await store.getAgent(input.agent)) === null) {
      throw authError("AIRLOCK_AUTH_AGENT_REQUIRED", `no agent "${input.agent}" to issue a token for`);
    }
  } else if (input.agent !== undefined) {
    throw authError("AIRLOCK_AUTH_AGENT_REQUIRED", "an operator token acts for no agent; omit the agent");
  }
  const label = input.label ?? "";
  if (label.length > 200)
    throw authError("AIRLOCK_AUTH_INVALID_LABEL", "a token label is at most 200 characters");
  const token = generateToken(input.role);
  const record: TokenRecord = {
    id: `tok_${randomBytes(9).toString("base64url")}`,
    role: input.role,
    agent: input.role === "agent" ? (input.agent ?? null) : null,
    label,
    createdAt: new Date().toISOString(),
    prefix: tokenDisplayPrefix(token),
  };
  await store.putToken(record, hashToken(token));
  return { id: record.id, token, record };
}

/**
 * The record a token stands for, or null (malformed, unknown, revoked, or its prefix disagrees
 * with the stored role). Looks the hash up; never compares clear tokens.
 */
export async function authenticate(store: Store, token: string): Promise<TokenRecord | null> {
  if (typeof token !== "string") return null;
  const role = tokenRole(token);
  if (role === null) return null;
  const record = await store.findToken(hashToken(token));
  if (record === null || record.role !== role) return null;
  return record;
}
