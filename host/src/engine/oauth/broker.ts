// The OAuth broker: runs the authorization-code flow with PKCE (S256) for a provider a plugin
// declares, per agent (or per end user of an agent: `subject`), keeps the tokens encrypted in
// the store, refreshes them before they expire, revokes them on disconnect, and hands the
// access token only to the egress gate (ctx.fetch with `oauth`) — or, where the manifest says
// why and the operator allows it, to ctx.oauth.token.
// Invariants: a connect link is sealed by the vault (agent, subject, plugin, provider, expiry),
// so it cannot be forged or pointed at another agent; the `state` is 32 random bytes, stored
// with the encrypted verifier and consumed once (a replayed, forged or expired callback gets
// AIRLOCK_OAUTH_STATE_INVALID and is audited); the redirect URI sent at the token request is
// the one sent at authorization; no token, code, verifier or client secret is ever in an
// audit entry, an error, a page or a log.
import { createHash, randomBytes } from "node:crypto";
import { type OAuthProviderSpec, oauthSecretKeys } from "@airlock/sdk";
import { hasCode } from "@airlock/sdk/errors";
import type { PluginManifest } from "@airlock/sdk/manifest";
import type { ConnectTarget, OAuthConnectionView } from "../../contracts/oauth.ts";
import type { SecretSource } from "../../state/secrets/index.ts";
import type { Vault } from "../../state/secrets/vault.ts";
import type { OAuthTokenRecord } from "../../state/store/broker-types.ts";
import type { AuditInput, Store } from "../../state/store/types.ts";
import { type EndpointDeps, postToEndpoint } from "./endpoint.ts";
import { brokerError } from "./errors.ts";

export type { ConnectTarget, OAuthConnectionView };

export const CALLBACK_PATH = "/oauth/callback";
export const CONNECT_PATH = "/oauth/connect";
/** How long a connect link, and then the authorization in progress, stays valid. */
export const LINK_TTL_MS = 15 * 60_000;
/** A token this close to expiry is refreshed before use. */
export const REFRESH_MARGIN_MS = 60_000;

export interface OAuthBrokerDeps {
  store: Store;
  vault: Vault;
  secrets: SecretSource;
  endpoint: EndpointDeps;
  audit: (entry: AuditInput) => Promise<void>;
  clock: () => number;
  /** The host's URL as a browser reaches it (`http://127.0.0.1:7070`); undefined until known. */
  publicUrl: () => string | undefined;
}

export interface OAuthBroker {
  /** A link that starts the flow in a browser (valid LINK_TTL_MS). */
  connectLink(target: ConnectTarget): string;
  /** Opens a connect link: records the flow and answers the provider's authorization URL. */
  begin(ticket: string): Promise<string>;
  /** Handles the provider's redirect back: exchanges the code, stores the token. */
  complete(query: Record<string, string | undefined>): Promise<ConnectTarget>;
  /** A fresh access token for the target, or undefined when not connected (or revoked). */
  accessToken(target: ConnectTarget, provider: OAuthProviderSpec): Promise<string | undefined>;
  disconnect(agent: string, provider: string, subject?: string): Promise<boolean>;
  list(agent: string): Promise<OAuthConnectionView[]>;
}

interface StoredTokens {
  access: string;
  refresh?: string;
}

const b64url = (b: Buffer) => b.toString("base64url");
const LINK_PURPOSE = "oauth-connect";

/** The provider as the active version of `plugin` declares it, or undefined. */
async function activeProvider(store: Store, plugin: string, name: string) {
  const activation = await store.getActivation(plugin);
  if (activation === null) return undefined;
  const record = await store.getInstalledPlugin(plugin, activation.active);
  const manifest: PluginManifest | undefined = record?.manifest;
  return manifest?.oauth?.find((p) => p.name === name);
}

function tokenFields(
  json: unknown,
): { access: string; refresh?: string; expiresIn?: number; scope?: string } | null {
  if (typeof json !== "object" || json === null) return null;
  const j = json as Record<string, unknown>;
  if (typeof j.access_token !== "string" || j.access_token === "") return null;
  const type = typeof j.token_type === "string" ? j.token_type.toLowerCase() : "bearer";
  if (type !== "bearer") return null;
  return {
    access: j.access_token,
    ...(typeof j.refresh_token === "string" && j.refresh_token !== "" ? { refresh: j.refresh_token } : {}),
    ...(typeof j.expires_in === "number" && j.expires_in > 0 ? { expiresIn: j.expires_in } : {}),
    ...(typeof j.scope === "string" ? { scope: j.scope } : {}),
  };
}

export function createOAuthBroker(deps: OAuthBrokerDeps): OAuthBroker {
  const { store, vault } = deps;
  const inFlight = new Map<string, Promise<string | undefined>>();

  function base(): string {
    const url = deps.publicUrl();
    if (url === undefined) {
      throw brokerError(
        "AIRLOCK_OAUTH_PUBLIC_URL_MISSING",
        "this host has no public URL to send people to (start it with --public-url, or AIRLOCK_PUBLIC_URL)",
      );
    }
    return url.replace(/\/+$/, "");
  }

  async function audit(target: Partial<ConnectTarget>, action: string, fields: Partial<AuditInput>) {
    await deps.audit({
      agent: target.agent ?? null,
      plugin: target.plugin ?? null,
      tool: null,
      conversationId: null,
      kind: "admin",
      action,
      allowed: true,
      success: true,
      error: null,
      durationMs: null,
      ...fields,
      details: {
        ...(target.provider === undefined ? {} : { provider: target.provider }),
        ...(target.subject === undefined || target.subject === "" ? {} : { subject: target.subject }),
        ...(fields.details ?? {}),
      },
    });
  }

  async function refused(target: Partial<ConnectTarget>, action: string, error: unknown): Promise<never> {
    await audit(target, action, {
      allowed: false,
      success: false,
      error: hasCode(error) ? error.code : "AIRLOCK_OAUTH_TOKEN_FAILED",
    });
    throw error;
  }

  async function clientCredentials(agent: string, provider: string) {
    const keys = oauthSecretKeys(provider);
    const clientId = await deps.secrets.get(agent, keys.clientId);
    if (clientId === undefined || clientId === "") {
      throw brokerError(
        "AIRLOCK_OAUTH_CLIENT_MISSING",
        `the operator has not set ${keys.clientId} for agent ${agent}`,
        { provider, secret: keys.clientId },
      );
    }
    const clientSecret = await deps.secrets.get(agent, keys.clientSecret);
    return { clientId, clientSecret: clientSecret === "" ? undefined : clientSecret };
  }

  /** One token-endpoint request; answers the parsed tokens or throws AIRLOCK_OAUTH_TOKEN_FAILED. */
  async function tokenRequest(spec: OAuthProviderSpec, agent: string, form: Record<string, string>) {
    const { clientId, clientSecret } = await clientCredentials(agent, spec.name);
    const answer = await postToEndpoint(
      spec.tokenUrl,
      {
        form: {
          ...form,
          client_id: clientId,
          ...(clientSecret === undefined ? {} : { client_secret: clientSecret }),
        },
      },
      {},
      deps.endpoint,
    ).catch((error: unknown) => {
      throw brokerError(
        "AIRLOCK_OAUTH_TOKEN_FAILED",
        `the ${spec.name} token endpoint could not be reached`,
        { provider: spec.name, reason: hasCode(error) ? error.code : "network" },
        error,
      );
    });
    const tokens = answer.status === 200 ? tokenFields(answer.json) : null;
    if (tokens === null) {
      const oauthError =
        typeof (answer.json as { error?: unknown } | null)?.error === "string"
          ? String((answer.json as { error: string }).error).slice(0, 64)
          : null;
      throw brokerError(
        "AIRLOCK_OAUTH_TOKEN_FAILED",
        `the ${spec.name} token endpoint answered ${answer.status}${oauthError === null ? "" : ` (${oauthError})`}`,
        { provider: spec.name, status: answer.status, ...(oauthError === null ? {} : { oauthError }) },
      );
    }
    return tokens;
  }

  async function save(
    target: ConnectTarget,
    tokens: NonNullable<ReturnType<typeof tokenFields>>,
    spec: OAuthProviderSpec,
    previousRefresh?: string,
  ): Promise<OAuthTokenRecord> {
    const now = deps.clock();
    const stored: StoredTokens = {
      access: tokens.access,
      ...(tokens.refresh !== undefined
        ? { refresh: tokens.refresh }
        : previousRefresh !== undefined
          ? { refresh: previousRefresh }
          : {}),
    };
    const record: OAuthTokenRecord = {
      agent: target.agent,
      subject: target.subject,
      provider: target.provider,
      plugin: target.plugin,
      ciphertext: vault.encrypt(JSON.stringify(stored)),
      scopes: tokens.scope === undefined ? [...spec.scopes] : tokens.scope.split(/[\s,]+/).filter(Boolean),
      expiresAt: tokens.expiresIn === undefined ? null : now + tokens.expiresIn * 1000,
      updatedAt: new Date(now).toISOString(),
    };
    await store.putOAuthToken(record);
    return record;
  }

  return {
    connectLink(target) {
      const sealed = vault.encrypt(
        JSON.stringify({ p: LINK_PURPOSE, v: { ...target, e: deps.clock() + LINK_TTL_MS } }),
      );
      return `${base()}${CONNECT_PATH}/${sealed}`;
    },

    async begin(ticket) {
      let target: (ConnectTarget & { e: number }) | null = null;
      try {
        const opened = JSON.parse(vault.decrypt(ticket)) as {
          p?: unknown;
          v?: ConnectTarget & { e: number };
        };
        if (opened.p === LINK_PURPOSE && opened.v !== undefined) target = opened.v;
      } catch {
        target = null; // not sealed by this host's key, or altered: refused below
      }
      if (target === null || typeof target.e !== "number" || target.e <= deps.clock()) {
        return refused(
          target ?? {},
          "oauth.connect.start",
          brokerError("AIRLOCK_OAUTH_LINK_INVALID", "this connect link is not valid (altered, or expired)"),
        );
      }
      const { agent, subject, plugin, provider } = target;
      const who = { agent, subject, plugin, provider };
      const spec = await activeProvider(store, plugin, provider);
      if (spec === undefined) {
        return refused(
          who,
          "oauth.connect.start",
          brokerError(
            "AIRLOCK_OAUTH_LINK_INVALID",
            `no active plugin ${plugin} declares provider ${provider}`,
          ),
        );
      }
      const { clientId } = await clientCredentials(agent, provider).catch((e: unknown) =>
        refused(who, "oauth.connect.start", e),
      );
      const state = b64url(randomBytes(32));
      const verifier = b64url(randomBytes(48));
      const redirectUri = `${base()}${CALLBACK_PATH}`;
      await store.putOAuthFlow({
        state,
        agent,
        subject,
        provider,
        plugin,
        verifier: vault.encrypt(verifier),
        redirectUri,
        expiresAt: deps.clock() + LINK_TTL_MS,
      });
      await audit(who, "oauth.connect.start", {});
      const url = new URL(spec.authorizationUrl);
      url.searchParams.set("response_type", "code");
      url.searchParams.set("client_id", clientId);
      url.searchParams.set("redirect_uri", redirectUri);
      if (spec.scopes.length > 0) url.searchParams.set("scope", spec.scopes.join(" "));
      url.searchParams.set("state", state);
      url.searchParams.set("code_challenge", b64url(createHash("sha256").update(verifier).digest()));
      url.searchParams.set("code_challenge_method", "S256");
      return url.href;
    },

    async complete(query) {
      const state = query.state ?? "";
      const flow = state === "" ? null : await store.takeOAuthFlow(state, deps.clock());
      if (flow === null) {
        return refused(
          {},
          "oauth.connect",
          brokerError(
            "AIRLOCK_OAUTH_STATE_INVALID",
            "this sign-in answer is not expected: its state is unknown, already used or expired; start again from a new connect link",
          ),
        );
      }
      const target: ConnectTarget = {
        agent: flow.agent,
        subject: flow.subject,
        plugin: flow.plugin,
        provider: flow.provider,
      };
      if (query.error !== undefined) {
        const providerError = query.error.replace(/[^\w.-]/g, "").slice(0, 64);
        return refused(
          target,
          "oauth.connect",
          brokerError("AIRLOCK_OAUTH_DENIED", `${flow.provider} answered: ${providerError}`, {
            provider: flow.provider,
            oauthError: providerError,
          }),
        );
      }
      const spec = await activeProvider(store, flow.plugin, flow.provider);
      if (spec === undefined || query.code === undefined || query.code === "") {
        return refused(
          target,
          "oauth.connect",
          brokerError(
            "AIRLOCK_OAUTH_STATE_INVALID",
            "the answer carries no code, or the provider is no longer declared",
          ),
        );
      }
      const tokens = await tokenRequest(spec, flow.agent, {
        grant_type: "authorization_code",
        code: query.code,
        redirect_uri: flow.redirectUri,
        code_verifier: vault.decrypt(flow.verifier),
      }).catch((e: unknown) => refused(target, "oauth.connect", e));
      const record = await save(target, tokens, spec);
      await audit(target, "oauth.connect", { details: { scopes: record.scopes } });
      return target;
    },

    accessToken(target, spec) {
      // One refresh at a time per connection in this process: two tool calls finding the token
      // stale together share the refresh (a rotating provider would revoke the loser's grant).
      const key = JSON.stringify([target.agent, target.subject, target.provider]);
      const running = inFlight.get(key);
      if (running !== undefined) return running;
      const work = freshToken(target, spec).finally(() => inFlight.delete(key));
      inFlight.set(key, work);
      return work;
    },

    disconnect: disconnectImpl,
    list: listImpl,
  };

  async function freshToken(target: ConnectTarget, spec: OAuthProviderSpec): Promise<string | undefined> {
    const record = await store.getOAuthToken(target.agent, target.subject, target.provider);
    if (record === null) return undefined;
    const tokens = JSON.parse(vault.decrypt(record.ciphertext)) as StoredTokens;
    const now = deps.clock();
    // Refresh within a minute of expiry, or within half the lifetime of a short-lived token.
    const lifetime = record.expiresAt === null ? 0 : record.expiresAt - Date.parse(record.updatedAt);
    const margin = Math.min(REFRESH_MARGIN_MS, Math.max(0, lifetime / 2));
    if (record.expiresAt === null || record.expiresAt - now > margin) return tokens.access;
    if (tokens.refresh === undefined) {
      if (record.expiresAt > now) return tokens.access;
      await store.deleteOAuthToken(target.agent, target.subject, target.provider);
      await audit(target, "oauth.expire", { success: false, error: "AIRLOCK_OAUTH_NOT_CONNECTED" });
      return undefined;
    }
    try {
      const fresh = await tokenRequest(spec, target.agent, {
        grant_type: "refresh_token",
        refresh_token: tokens.refresh,
      });
      await save({ ...target, plugin: record.plugin }, fresh, spec, tokens.refresh);
      await audit(target, "oauth.refresh", {});
      return fresh.access;
    } catch (error) {
      // A refused refresh means the grant is gone (revoked at the provider): forget it, so the
      // next requireToken asks the person to connect again instead of failing every call.
      const gone =
        hasCode(error, "AIRLOCK_OAUTH_TOKEN_FAILED") &&
        (error as { details?: { status?: number } }).details?.status !== undefined;
      if (gone) await store.deleteOAuthToken(target.agent, target.subject, target.provider);
      await audit(target, "oauth.refresh", {
        success: false,
        error: hasCode(error) ? error.code : "AIRLOCK_OAUTH_TOKEN_FAILED",
        details: { forgotten: gone },
      });
      return gone ? undefined : record.expiresAt > now ? tokens.access : undefined;
    }
  }

  async function disconnectImpl(agent: string, provider: string, subject = ""): Promise<boolean> {
    const record = await store.getOAuthToken(agent, subject, provider);
    if (record === null) return false;
    const target = { agent, subject, provider, plugin: record.plugin };
    const spec = await activeProvider(store, record.plugin, provider);
    let revoked: boolean | null = null;
    if (spec?.revocationUrl !== undefined) {
      const tokens = JSON.parse(vault.decrypt(record.ciphertext)) as StoredTokens;
      const { clientId, clientSecret } = await clientCredentials(agent, provider).catch(() => ({
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
        deps.endpoint,
      ).catch(() => null);
      revoked = answer !== null && answer.status === 200;
    }
    const deleted = await store.deleteOAuthToken(agent, subject, provider);
    await audit(target, "oauth.disconnect", { details: { revokedAtProvider: revoked } });
    return deleted;
  }

  async function listImpl(agent: string): Promise<OAuthConnectionView[]> {
    return (await store.listOAuthTokens(agent)).map((r) => {
      const tokens = JSON.parse(vault.decrypt(r.ciphertext)) as StoredTokens;
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
}
