// The broker's shared ground: its dependencies, the target of a connection, and the helpers
// every operation of the OAuth broker uses — the host's public base URL, the audit of a broker
// action, the client credentials an operator set per agent, one token-endpoint request, and
// saving tokens encrypted in the store.
// Contract: `createBrokerContext(deps)` answers these helpers bound to `deps`; the flow
// (broker-flow.ts) and the stored connections (broker-connections.ts) take the context explicitly.
// Invariants: audit rows carry provider, subject and plugin, never a token, code, verifier or
// client secret; a token-endpoint failure is AIRLOCK_OAUTH_TOKEN_FAILED with the status and the
// provider's error code (≤64 chars) only; tokens are stored only as vault ciphertext.
import { type OAuthProviderSpec, oauthSecretKeys } from "@airlock/sdk";
import { hasCode } from "@airlock/sdk/errors";
import type { PluginManifest } from "@airlock/sdk/manifest";
import type { ConnectTarget } from "../../contracts/oauth.ts";
import type { SecretSource } from "../../state/secrets/index.ts";
import type { Vault } from "../../state/secrets/vault.ts";
import type { OAuthTokenRecord } from "../../state/store/broker-types.ts";
import type { AuditInput, Store } from "../../state/store/types.ts";
import { type EndpointDeps, postToEndpoint } from "./endpoint.ts";
import { brokerError } from "./errors.ts";

export const CALLBACK_PATH = "/oauth/callback";
export const CONNECT_PATH = "/oauth/connect";
/** How long a connect link, and then the authorization in progress, stays valid. */
export const LINK_TTL_MS = 15 * 60_000;
/** A token this close to expiry is refreshed before use. */
export const REFRESH_MARGIN_MS = 60_000;

export type { ConnectTarget };

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

export interface StoredTokens {
  access: string;
  refresh?: string;
}

export const b64url = (b: Buffer) => b.toString("base64url");
export const LINK_PURPOSE = "oauth-connect";

/** The provider as the active version of `plugin` declares it, or undefined. */
export async function activeProvider(store: Store, plugin: string, name: string) {
  const activation = await store.getActivation(plugin);
  if (activation === null) return undefined;
  const record = await store.getInstalledPlugin(plugin, activation.active);
  const manifest: PluginManifest | undefined = record?.manifest;
  return manifest?.oauth?.find((p) => p.name === name);
}

export function tokenFields(
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

/** The tokens one token-endpoint request answered. */
export type TokenFields = NonNullable<ReturnType<typeof tokenFields>>;

export interface BrokerContext {
  deps: OAuthBrokerDeps;
  store: Store;
  vault: Vault;
  /** The host's public URL without a trailing slash (AIRLOCK_OAUTH_PUBLIC_URL_MISSING if unknown). */
  base(): string;
  /** Audits a broker action (kind admin) for `target`. */
  audit(target: Partial<ConnectTarget>, action: string, fields: Partial<AuditInput>): Promise<void>;
  /** Audits a refused action with the error's code, then throws the error. */
  refused(target: Partial<ConnectTarget>, action: string, error: unknown): Promise<never>;
  clientCredentials(
    agent: string,
    provider: string,
  ): Promise<{ clientId: string; clientSecret: string | undefined }>;
  /** One token-endpoint request; answers the parsed tokens or throws AIRLOCK_OAUTH_TOKEN_FAILED. */
  tokenRequest(spec: OAuthProviderSpec, agent: string, form: Record<string, string>): Promise<TokenFields>;
  /** Stores tokens for `target` (keeping `previousRefresh` when the answer has no new one). */
  save(
    target: ConnectTarget,
    tokens: TokenFields,
    spec: OAuthProviderSpec,
    previousRefresh?: string,
  ): Promise<OAuthTokenRecord>;
}

export function createBrokerContext(deps: OAuthBrokerDeps): BrokerContext {
  const { store, vault } = deps;

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
    tokens: TokenFields,
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

  return { deps, store, vault, base, audit, refused, clientCredentials, tokenRequest, save };
}
