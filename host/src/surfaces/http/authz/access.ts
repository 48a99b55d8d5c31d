// Access tokens at an agent's MCP endpoint, and the operator's revocation of a grant.
// Invariants: an access token is accepted only for the resource (MCP URL) it was granted for,
// while its grant is active and its agent is the one that consented (an agent deleted and made
// again does not inherit grants); a refusal is audited with its code, never with the token.

import type { AirlockHost } from "../../../contracts/host.ts";
import type { AuthGrantRecord, TokenRecord } from "../../../contracts/records.ts";
import { authzAudit } from "./config.ts";
import { consentingAgentExists, hashSecret, refuse, SECRET_PREFIXES } from "./grants.ts";

/** True when a bearer value claims to be one of this server's access tokens. */
export const isAccessToken = (token: string): boolean => token.startsWith(SECRET_PREFIXES.access);

/**
 * The caller an access token stands for at the MCP URL `resource` (an agent-role record whose id
 * is the grant's); AIRLOCK_AUTHZ_TOKEN_INVALID or AIRLOCK_AUTHZ_WRONG_AUDIENCE otherwise.
 */
export async function verifyAccessToken(
  host: AirlockHost,
  token: string,
  resource: string,
): Promise<TokenRecord> {
  const authServer = host.authorization;
  const found = token.length > 512 ? null : await authServer.findSecret(hashSecret(token), Date.now());
  const grant = found === null || found.kind !== "access" ? null : await authServer.getGrant(found.grantId);
  if (grant === null || grant.revokedAt !== null || !(await consentingAgentExists(host, grant))) {
    return refuse(
      host,
      "access",
      "AIRLOCK_AUTHZ_TOKEN_INVALID",
      "unknown, expired or revoked access token",
      null,
    );
  }
  if (grant.resource !== resource) {
    return refuse(
      host,
      "access",
      "AIRLOCK_AUTHZ_WRONG_AUDIENCE",
      `this access token was granted for ${grant.resource}, not for ${resource}`,
      grant.agent,
      { grantId: grant.id },
    );
  }
  return {
    id: grant.id,
    role: "agent",
    agent: grant.agent,
    label: `oauth grant to ${grant.clientName || grant.clientId}`,
    createdAt: grant.createdAt,
  };
}

/** The operator revokes a grant from the console; AIRLOCK_AUTHZ_UNKNOWN_GRANT when it is not the agent's. */
export async function revokeGrantOf(
  host: AirlockHost,
  agent: string,
  grantId: string,
): Promise<AuthGrantRecord> {
  const authServer = host.authorization;
  const grant = await authServer.getGrant(grantId);
  if (grant === null || grant.agent !== agent) {
    return refuse(
      host,
      "revoke",
      "AIRLOCK_AUTHZ_UNKNOWN_GRANT",
      `agent ${agent} has no OAuth grant ${grantId}`,
      agent,
    );
  }
  await authServer.revokeGrant(grant.id, new Date().toISOString());
  await authzAudit(host, "revoke", null, agent, { grantId: grant.id, via: "operator" });
  return (await authServer.getGrant(grant.id)) ?? grant;
}
