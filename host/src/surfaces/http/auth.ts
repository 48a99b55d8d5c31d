// Bearer-token authentication and the access rules of the admin API and the MCP endpoint.
// Invariants: a token is resolved only through `host.authenticate` (the store keeps hashes);
// an agent token reaches nothing but its own agent's tool list, tool calls, events and MCP
// endpoint; the order is 401 (who are you) before 403 (may you) before 404 (does it exist), so
// a caller without a valid token learns nothing about which agents exist. An agent token naming
// any other agent's slug gets the 404 of an unknown agent, whether that agent exists or not
// (the typo case says what is wrong; an agent token still cannot probe for other agents).
// A 401 for a bearer token that was sent but is not one of ours says "invalid token"
// (RFC 6750 error="invalid_token"), not "authenticate".
import type { AirlockHost } from "../../contracts/host.ts";
import type { TokenRecord } from "../../contracts/records.ts";
import { apiError } from "./errors.ts";
import type { Access } from "./route-table.ts";

/** The token of an `Authorization: Bearer <token>` header, or null. */
export function bearerToken(header: string | null | undefined): string | null {
  if (header === null || header === undefined) return null;
  const match = /^Bearer[ \t]+([^\s]+)[ \t]*$/i.exec(header);
  return match?.[1] ?? null;
}

/** The message of a 401 for a bearer token that was sent but is unknown or revoked. */
export const INVALID_TOKEN =
  "invalid token: the bearer token is not one of this host's (unknown or revoked); check the Authorization header";

/**
 * RFC 6750 §3 challenge of a 401: a request that carried a bearer token is told the token is
 * invalid (error="invalid_token"), one that carried none only that a bearer token is needed.
 * `params` go before the error (e.g. the MCP endpoint's resource_metadata).
 */
export function bearerChallenge(sentToken: boolean, params = ""): string {
  const error = sentToken ? `, error="invalid_token", error_description="unknown or revoked token"` : "";
  return `Bearer realm="airlock"${params}${error}`;
}

/** Resolves the request's token; AIRLOCK_API_UNAUTHORIZED when absent or unknown. */
export async function authenticateRequest(
  host: AirlockHost,
  header: string | null | undefined,
): Promise<TokenRecord> {
  const token = bearerToken(header);
  if (token === null) {
    throw apiError("AIRLOCK_API_UNAUTHORIZED", "send an `Authorization: Bearer <token>` header");
  }
  // Tokens are opaque ASCII; refuse absurd input before hashing it.
  if (token.length > 512) throw apiError("AIRLOCK_API_UNAUTHORIZED", INVALID_TOKEN);
  const record = await host.authenticate(token);
  if (record === null) throw apiError("AIRLOCK_API_UNAUTHORIZED", INVALID_TOKEN);
  return record;
}

/** Throws AIRLOCK_API_FORBIDDEN unless `token` satisfies `access` for the agent `slug` (if any). */
export function checkAccess(token: TokenRecord, access: Access, slug: string | undefined): void {
  if (token.role === "operator" || access === "public" || access === "any-token") return;
  if (access === "agent-self" && slug !== undefined && token.agent === slug) return;
  if (access === "agent-self" && slug !== undefined && token.agent !== null) {
    throw apiError(
      "AIRLOCK_API_UNKNOWN_AGENT",
      `no agent ${JSON.stringify(slug)} for this token: it is agent ${JSON.stringify(token.agent)}'s token, which reaches that agent only`,
    );
  }
  const what = access === "operator" ? "an operator token" : "an operator token or this agent's token";
  throw apiError("AIRLOCK_API_FORBIDDEN", `this route needs ${what}`);
}
