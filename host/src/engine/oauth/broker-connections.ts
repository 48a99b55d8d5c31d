// The OAuth broker's stored connections: a fresh access token (refreshed near expiry), a
// disconnect (revoked at the provider when it offers revocation), and the list of an agent's
// connections.
// Contract: each function takes the broker's context (broker-context.ts) explicitly; callers
// share one refresh per connection (broker.ts's in-flight map).
// Invariants: a token is refreshed within REFRESH_MARGIN_MS of expiry, or within half the
// lifetime of a short-lived one; a refresh the provider refuses forgets the grant (the next use
// asks the person to connect again); a token past expiry without a refresh token is deleted and
// audited oauth.expire; a listing names scopes and dates, never a token.
import type { OAuthProviderSpec } from "@airlock/sdk";
import { hasCode } from "@airlock/sdk/errors";
import type { OAuthConnectionView } from "../../contracts/oauth.ts";
import {
  activeProvider,
  type BrokerContext,
  type ConnectTarget,
  REFRESH_MARGIN_MS,
  type StoredTokens,
} from "./broker-context.ts";
import { postToEndpoint } from "./endpoint.ts";

/** A fresh access token for the target, or undefined when not connected (or revoked). */
export async function freshToken(
  ctx: BrokerContext,
  target: ConnectTarget,
  spec: OAuthProviderSpec,
): Promise<string | undefined> {
  const record = await ctx.store.getOAuthToken(target.agent, target.subject, target.provider);
  if (record === null) return undefined;
  const tokens = JSON.parse(ctx.vault.decrypt(record.ciphertext)) as StoredTokens;
  const now = ctx.deps.clock();
  // Refresh within a minute of expiry, or within half the lifetime of a short-lived token.
  const lifetime = record.expiresAt === null ? 0 : record.expiresAt - Date.parse(record.updatedAt);
  const margin = Math.min(REFRESH_MARGIN_MS, Math.max(0, lifetime / 2));
  if (record.expiresAt === null || record.expiresAt - now > margin) return tokens.access;
  if (tokens.refresh === undefined) {
    if (record.expiresAt > now) return tokens.access;
    await ctx.store.deleteOAuthToken(target.agent, target.subject, target.provider);
    await ctx.audit(target, "oauth.expire", { success: false, error: "AIRLOCK_OAUTH_NOT_CONNECTED" });
    return undefined;
  }
  try {
    const fresh = await ctx.tokenRequest(spec, target.agent, {
      grant_type: "refresh_token",
      refresh_token: tokens.refresh,
    });
    await ctx.save({ ...target, plugin: record.plugin }, fresh, spec, tokens.refresh);
    await ctx.audit(target, "oauth.refresh", {});
    return fresh.access;
  } catch (error) {
    // A refused refresh means the grant is gone (revoked at the provider): forget it, so the
    // next requireToken asks the person to connect again instead of failing every call.
    const gone =
      hasCode(error, "AIRLOCK_OAUTH_TOKEN_FAILED") &&
      (error as { details?: { status?: number } }).details?.status !== undefined;
    if (gone) await ctx.store.deleteOAuthToken(target.agent, target.subject, target.provider);
    await ctx.audit(target, "oauth.refresh", {
      success: false,
      error: hasCode(error) ? error.code : "AIRLOCK_OAUTH_TOKEN_FAILED",
      details: { forgotten: gone },
    });
    return gone ? undefined : record.expiresAt > now ? tokens.access : undefined;
  }
}

export async function disconnectConnection(
  ctx: BrokerContext,
  agent: string,
  provider: string,
  subject = "",
): Promise<boolean> {
  const record = await ctx.store.getOAuthToken(agent, subject, provider);
  if (record === null) return false;
  const target = { agent, subject, provider, plugin: record.plugin };
  const spec = await activeProvider(ctx.store, record.plugin, provider);
  let revoked: boolean | null = null;
  if (spec?.revocationUrl !== undefined) {
    const tokens = JSON.parse(ctx.vault.decrypt(record.ciphertext)) as StoredTokens;
    const { clientId, clientSecret } = await ctx.clientCredentials(agent, provider).catch(() => ({
      clientId: undefined,
      clientSecret: undefined,
    }));
    const answer = await postToEndpoint(
      spec.revocationUrl,
      {
        form: {
          token: tokens.refresh ?? tokens.access,
          token_type_hint: tokens.refresh === undefined ? "access_token" : "refresh_token",
          ...(clientId === undefined ? {} : { client_id: clientId }),
          ...(clientSecret === undefined ? {} : { client_secret: clientSecret }),
        },
      },
      {},
      ctx.deps.endpoint,
    ).catch(() => null);
    revoked = answer !== null && answer.status === 200;
  }
  const deleted = await ctx.store.deleteOAuthToken(agent, subject, provider);
  await ctx.audit(target, "oauth.disconnect", { details: { revokedAtProvider: revoked } });
  return deleted;
}

export async function listConnections(ctx: BrokerContext, agent: string): Promise<OAuthConnectionView[]> {
  return (await ctx.store.listOAuthTokens(agent)).map((r) => {
    const tokens = JSON.parse(ctx.vault.decrypt(r.ciphertext)) as StoredTokens;
    return {
      provider: r.provider,
      subject: r.subject,
      plugin: r.plugin,
      scopes: r.scopes,
      expiresAt: r.expiresAt === null ? null : new Date(r.expiresAt).toISOString(),
      refreshable: tokens.refresh !== undefined,
      updatedAt: r.updatedAt,
    };
  });
}
