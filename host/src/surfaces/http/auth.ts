// Bearer-token authentication and the access rules of the admin API and the MCP endpoint.
// Invariants: a token is resolved only through `host.authenticate` (the store keeps hashes);
// an agent token reaches nothing but its own agent's tool list, tool calls, events and MCP
// endpoint; the order is 401 (who are you) before 403 (may you) before 404 (does it exist),
// so an agent token cannot probe which other agents exist.
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
  if (token.length > 512) throw apiError("AIRLOCK_API_UNAUTHORIZED", "unknown or revoked token");
  const record = await host.authenticate(token);
  if (record === null) throw apiError("AIRLOCK_API_UNAUTHORIZED", "unknown or revoked token");
  return record;
}

/** Throws AIRLOCK_API_FORBIDDEN unless `token` satisfies `access` for the agent `slug` (if any). */
export function checkAccess(token: TokenRecord, access: Access, slug: string | undefined): void {
  if (token.role === "operator" || access === "public" || access === "any-token") return;
  if (access === "agent-self" && slug !== undefined && token.agent === slug) return;
  const what = access === "operator" ? "an operator token" : "an operator token or this agent's token";
  throw apiError("AIRLOCK_API_FORBIDDEN", `this route needs ${what}`);
}
