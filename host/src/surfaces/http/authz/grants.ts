// The authorization server's grants and what they issue: single-use authorization codes bound
// to a client, a redirect URI and a PKCE S256 challenge; access tokens bound to one agent's MCP
// URL (their audience) that expire; refresh tokens that rotate on every use.
// Invariants: every secret is 32 random bytes behind a recognisable prefix and only its sha256
// is stored; a code is redeemed once (a replay revokes what it issued); a refresh token is
// exchanged once (a reuse revokes the whole grant, its family), and only while the agent that
// consented exists (an agent deleted, or deleted and made again, revokes the grant at its next
// refresh); every refusal is audited with its AIRLOCK_AUTHZ_* code, never with a secret. Access
// tokens are checked in access.ts, with the same agent check.
import { createHash, randomBytes } from "node:crypto";
import type { AirlockHost } from "../../../contracts/host.ts";
import type { AuthGrantRecord, AuthSecretKind } from "../../../contracts/records.ts";
import { type AuthzConfig, authzAudit } from "./config.ts";
import { type AuthzErrorCode, authzError } from "./errors.ts";

export const SECRET_PREFIXES: Readonly<Record<AuthSecretKind, string>> = {
  code: "alk_oac_",
  access: "alk_oat_",
  refresh: "alk_ort_",
};

const VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;

export const hashSecret = (secret: string): string =>
  createHash("sha256").update(secret, "utf8").digest("hex");
const mint = (kind: AuthSecretKind): string => SECRET_PREFIXES[kind] + randomBytes(32).toString("base64url");
export const newId = (prefix: string): string => `${prefix}${randomBytes(12).toString("base64url")}`;

/** What the consent page's approval turns into a code. */
export interface ApprovedRequest {
  clientId: string;
  clientName: string;
  redirectUri: string;
  resource: string;
  agent: string;
  challenge: string;
}

export interface TokenResponse {
  access_token: string;
  token_type: "Bearer";
  expires_in: number;
  refresh_token: string;
}

export async function refuse(
  host: AirlockHost,
  step: string,
  code: AuthzErrorCode,
  message: string,
  agent: string | null,
  details: Record<string, unknown> = {},
): Promise<never> {
  await authzAudit(host, step, code, agent, details);
  throw authzError(code, message);
}

/** Issues the code of an approved request (its grant id is fixed now, the grant made at exchange). */
export async function issueCode(
  host: AirlockHost,
  config: AuthzConfig,
  request: ApprovedRequest,
): Promise<string> {
  const code = mint("code");
  const grantId = newId("alg_");
  await host.authorization.putSecret({
    hash: hashSecret(code),
    kind: "code",
    grantId,
    data: { ...request },
    expiresAt: Date.now() + config.codeTtlMs,
    usedAt: null,
  });
  await authzAudit(host, "consent", null, request.agent, {
    clientId: request.clientId,
    grantId,
    approved: true,
  });
  return code;
}

async function issueTokens(host: AirlockHost, config: AuthzConfig, grantId: string): Promise<TokenResponse> {
  const access = mint("access");
  const refresh = mint("refresh");
  const now = Date.now();
  const authServer = host.authorization;
  await authServer.putSecret({
    hash: hashSecret(access),
    kind: "access",
    grantId,
    data: null,
    expiresAt: now + config.accessTtlMs,
    usedAt: null,
  });
  await authServer.putSecret({
    hash: hashSecret(refresh),
    kind: "refresh",
    grantId,
    data: null,
    expiresAt: now + config.refreshTtlMs,
    usedAt: null,
  });
  await authServer.pruneSecrets(now);
  return {
    access_token: access,
    token_type: "Bearer",
    expires_in: Math.floor(config.accessTtlMs / 1000),
    refresh_token: refresh,
  };
}

/** grant_type=authorization_code: redeems the code once, checks client, redirect URI and PKCE. */
export async function exchangeCode(
  host: AirlockHost,
  config: AuthzConfig,
  form: Record<string, string>,
): Promise<TokenResponse> {
  const authServer = host.authorization;
  const code = form.code ?? "";
  const found = code === "" ? null : await authServer.findSecret(hashSecret(code), Date.now());
  if (found === null || found.kind !== "code" || found.data === null) {
    return refuse(
      host,
      "token",
      "AIRLOCK_AUTHZ_INVALID_GRANT",
      "unknown or expired authorization code",
      null,
    );
  }
  const data = found.data;
  const agent = data.agent ?? null;
  if (found.usedAt !== null || !(await authServer.useSecret(found.hash, Date.now()))) {
    await authServer.revokeGrant(found.grantId, new Date().toISOString());
    return refuse(
      host,
      "token",
      "AIRLOCK_AUTHZ_CODE_REUSED",
      "this authorization code was already used",
      agent,
      {
        grantId: found.grantId,
        revoked: true,
      },
    );
  }
  if (form.client_id !== data.clientId || form.redirect_uri !== data.redirectUri) {
    return refuse(
      host,
      "token",
      "AIRLOCK_AUTHZ_INVALID_GRANT",
      "the code was issued to another client_id or redirect_uri",
      agent,
    );
  }
  if (form.resource !== undefined && form.resource !== data.resource) {
    return refuse(
      host,
      "token",
      "AIRLOCK_AUTHZ_INVALID_RESOURCE",
      "resource differs from the authorized one",
      agent,
    );
  }
  const verifier = form.code_verifier ?? "";
  const challenge = createHash("sha256").update(verifier, "ascii").digest("base64url");
  if (!VERIFIER.test(verifier) || challenge !== data.challenge) {
    return refuse(
      host,
      "token",
      "AIRLOCK_AUTHZ_PKCE_MISMATCH",
      "code_verifier does not match the challenge",
      agent,
    );
  }
  const grant: AuthGrantRecord = {
    id: found.grantId,
    clientId: String(data.clientId),
    clientName: String(data.clientName ?? ""),
    agent: String(data.agent),
    resource: String(data.resource),
    createdAt: new Date().toISOString(),
    revokedAt: null,
  };
  await authServer.putGrant(grant);
  const tokens = await issueTokens(host, config, grant.id);
  await authzAudit(host, "token", null, grant.agent, {
    grantId: grant.id,
    clientId: grant.clientId,
    grant: "code",
  });
  return tokens;
}

/** grant_type=refresh_token: rotates; a token exchanged before revokes its whole grant. */
export async function refreshTokens(
  host: AirlockHost,
  config: AuthzConfig,
  form: Record<string, string>,
): Promise<TokenResponse> {
  const authServer = host.authorization;
  const presented = form.refresh_token ?? "";
  const found = presented === "" ? null : await authServer.findSecret(hashSecret(presented), Date.now());
  const grant = found === null || found.kind !== "refresh" ? null : await authServer.getGrant(found.grantId);
  if (found === null || grant === null || grant.revokedAt !== null || grant.clientId !== form.client_id) {
    return refuse(
      host,
      "refresh",
      "AIRLOCK_AUTHZ_INVALID_GRANT",
      "unknown, expired or revoked refresh token",
      grant?.agent ?? null,
    );
  }
  if (!(await consentingAgentExists(host, grant))) {
    // The agent that consented was deleted (and maybe made again under its name): its grants
    // died with it, as access.ts refuses their access tokens; the grant is revoked for good.
    await authServer.revokeGrant(grant.id, new Date().toISOString());
    return refuse(
      host,
      "refresh",
      "AIRLOCK_AUTHZ_INVALID_GRANT",
      "the agent this grant was given for no longer exists; the grant is revoked",
      grant.agent,
      { grantId: grant.id, revoked: true, reason: "agent deleted or made again" },
    );
  }
  if (found.usedAt !== null || !(await authServer.useSecret(found.hash, Date.now()))) {
    await authServer.revokeGrant(grant.id, new Date().toISOString());
    return refuse(
      host,
      "refresh",
      "AIRLOCK_AUTHZ_REFRESH_REUSED",
      "this refresh token was already exchanged; the grant is revoked",
      grant.agent,
      { grantId: grant.id, revoked: true },
    );
  }
  const tokens = await issueTokens(host, config, grant.id);
  await authzAudit(host, "refresh", null, grant.agent, { grantId: grant.id, clientId: grant.clientId });
  return tokens;
}

/**
 * True while the agent a grant names is the one that consented to it: it exists and was not made
 * after the grant (an agent deleted and made again under the same slug inherits no grant).
 */
export async function consentingAgentExists(host: AirlockHost, grant: AuthGrantRecord): Promise<boolean> {
  const agent = await host.getAgent(grant.agent);
  return agent !== null && agent.createdAt <= grant.createdAt;
}

/** RFC 7009: revokes the grant of an access or refresh token of this client; unknown tokens are ignored. */
export async function revokeToken(host: AirlockHost, token: string, clientId: string): Promise<void> {
  const authServer = host.authorization;
  const found = token === "" ? null : await authServer.findSecret(hashSecret(token), Date.now());
  if (found === null || found.kind === "code") return;
  const grant = await authServer.getGrant(found.grantId);
  if (grant === null || grant.clientId !== clientId) return;
  const revoked = await authServer.revokeGrant(grant.id, new Date().toISOString());
  if (revoked) await authzAudit(host, "revoke", null, grant.agent, { grantId: grant.id, via: "client" });
}
