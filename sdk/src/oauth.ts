// OAuth providers and model access a plugin declares: `defineOAuthProvider({...})`, passed as
// `definePlugin({ oauth: [provider] })`, and `definePlugin({ models: { reason } })`.
// Contract: a provider is data the host acts on — the host runs the authorization-code flow
// with PKCE, keeps the tokens encrypted and injects the bearer into `ctx.fetch(url, { oauth })`
// only toward the provider's `apiHosts`, so a token never enters the isolate. The provider's
// client id and secret are operator-set secrets of the agent named `<provider>_oauth_client_id`
// (readable) and `<provider>_oauth_client_secret` (sensitive); no tool may declare either key,
// so plugin code can never read them. Pure data and checks: bundle-safe, no node:* imports.
import { sdkError } from "./error-codes.ts";
import type { SecretSpec } from "./manifest.ts";
import { SECRET_KEY_PATTERN } from "./names.ts";

/** `^[a-z][a-z0-9]*(_[a-z0-9]+)*$`, at most 32 characters: e.g. `github`, `google_drive`. */
export const OAUTH_PROVIDER_PATTERN = /^[a-z][a-z0-9]*(_[a-z0-9]+)*$/;
export const MAX_OAUTH_PROVIDER_LENGTH = 32;
/** Suffixes of the secret keys that hold a provider's client credentials (never declarable by a tool). */
export const OAUTH_CLIENT_ID_SUFFIX = "_oauth_client_id";
export const OAUTH_CLIENT_SECRET_SUFFIX = "_oauth_client_secret";
/** Suffix of the operator's per-agent switch ("allow" / "deny") for ctx.oauth.token. */
export const OAUTH_RAW_TOKEN_SUFFIX = "_oauth_raw_token";

export interface OAuthProviderSpec {
  /** The provider's name in this plugin: `ctx.oauth.requireToken(name)`, `ctx.fetch(url, { oauth: name })`. */
  name: string;
  /** The authorization endpoint (https; http only on a loopback address, for local servers). */
  authorizationUrl: string;
  /** The token endpoint (same rule). */
  tokenUrl: string;
  /** RFC 7009 revocation endpoint, when the provider has one (called on disconnect). */
  revocationUrl?: string;
  /** Scopes asked for at authorization (space-joined on the wire). */
  scopes: string[];
  /** Hosts the bearer may be sent to (exact names or `*.example.com`); each must be an egress host. */
  apiHosts: string[];
  /**
   * Present only when a tool must hold the raw access token (`ctx.oauth.token(name)`), with why;
   * the operator must also allow it per agent. Without it the token never enters the isolate.
   */
  rawToken?: { reason: string };
}

/** What a plugin declares about its own model calls (`ctx.models.complete`). */
export interface ModelsDeclaration {
  /** Why the plugin calls models, shown to the operator who grants a connection. */
  reason: string;
}

export const OAUTH_PROVIDER_KIND = "airlock.oauthProvider";

export interface DefinedOAuthProvider extends OAuthProviderSpec {
  readonly kind: typeof OAUTH_PROVIDER_KIND;
}

const HOST = /^(\*\.)?[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/;
const SCOPE = /^[\x21\x23-\x5b\x5d-\x7e]{1,200}$/; // RFC 6749 scope-token
const LOOPBACK = new Set(["127.0.0.1", "localhost", "[::1]"]);

/** The secret keys of a provider's client credentials. */
export function oauthSecretKeys(provider: string): {
  clientId: string;
  clientSecret: string;
  rawToken: string;
} {
  return {
    clientId: `${provider}${OAUTH_CLIENT_ID_SUFFIX}`,
    clientSecret: `${provider}${OAUTH_CLIENT_SECRET_SUFFIX}`,
    rawToken: `${provider}${OAUTH_RAW_TOKEN_SUFFIX}`,
  };
}

/**
 * The secrets an operator fills in for a provider, per agent: the client id (readable), the
 * client secret (sensitive; optional for a public client, which PKCE protects) and, when the
 * provider declares `rawToken`, the allow/deny switch of ctx.oauth.token. No tool can declare them.
 */
export function providerSecretSpecs(p: OAuthProviderSpec): SecretSpec[] {
  const keys = oauthSecretKeys(p.name);
  return [
    {
      key: keys.clientId,
      type: "text",
      label: `${p.name} OAuth client id`,
      description: `The client id of the OAuth app registered with ${p.name}; its redirect URI is this host's /oauth/callback.`,
      optional: false,
      sensitive: false,
    },
    {
      key: keys.clientSecret,
      type: "text",
      label: `${p.name} OAuth client secret`,
      description: `The OAuth app's client secret (leave empty for a public client). Only the host reads it.`,
      optional: true,
      sensitive: true,
    },
    ...(p.rawToken === undefined
      ? []
      : [
          {
            key: keys.rawToken,
            type: "select" as const,
            label: `Let tools read the raw ${p.name} token`,
            description: `The plugin says: ${p.rawToken.reason}`,
            choices: ["deny", "allow"],
            optional: true,
            sensitive: false,
          },
        ]),
  ];
}

/** True for a secret key the host keeps for a provider (client credentials, the raw-token switch). */
export function isOAuthClientKey(key: string): boolean {
  return (
    key.endsWith(OAUTH_CLIENT_ID_SUFFIX) ||
    key.endsWith(OAUTH_CLIENT_SECRET_SUFFIX) ||
    key.endsWith(OAUTH_RAW_TOKEN_SUFFIX)
  );
}

/** Why an endpoint URL is not acceptable, or null: https, or http on a loopback host only. */
export function oauthEndpointRefusal(raw: unknown): string | null {
  if (typeof raw !== "string" || raw.length > 2000) return "must be a URL string of at most 2000 characters";
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return "is not a URL";
  }
  if (url.username !== "" || url.password !== "") return "may not carry credentials";
  if (url.hash !== "") return "may not have a fragment";
  if (url.protocol === "https:") return null;
  if (url.protocol === "http:" && LOOPBACK.has(url.hostname)) return null;
  return "must be https (http only on a loopback host: 127.0.0.1, localhost, [::1])";
}

/** Every problem of a provider spec, as [field, problem] pairs (empty when valid). */
export function oauthProviderProblems(spec: unknown, marked = true): Array<[string, string]> {
  const problems: Array<[string, string]> = [];
  if (typeof spec !== "object" || spec === null) return [["", "must be an object"]];
  const s = spec as Record<string, unknown>;
  const known = [
    ...(marked ? ["kind"] : []),
    "name",
    "authorizationUrl",
    "tokenUrl",
    "revocationUrl",
    "scopes",
    "apiHosts",
    "rawToken",
  ];
  for (const k of Object.keys(s)) if (!known.includes(k)) problems.push([k, "is not a provider field"]);
  const name = s.name;
  if (
    typeof name !== "string" ||
    !OAUTH_PROVIDER_PATTERN.test(name) ||
    name.length > MAX_OAUTH_PROVIDER_LENGTH
  )
    problems.push([
      "name",
      `must match ${OAUTH_PROVIDER_PATTERN} (at most ${MAX_OAUTH_PROVIDER_LENGTH} characters)`,
    ]);
  else if (!SECRET_KEY_PATTERN.test(oauthSecretKeys(name).clientSecret))
    problems.push(["name", "does not make valid secret keys"]);
  for (const field of ["authorizationUrl", "tokenUrl"] as const) {
    const why = oauthEndpointRefusal(s[field]);
    if (why !== null) problems.push([field, why]);
  }
  if (s.revocationUrl !== undefined) {
    const why = oauthEndpointRefusal(s.revocationUrl);
    if (why !== null) problems.push(["revocationUrl", why]);
  }
  const scopes = s.scopes;
  if (
    !Array.isArray(scopes) ||
    scopes.length > 64 ||
    !scopes.every((x) => typeof x === "string" && SCOPE.test(x))
  )
    problems.push(["scopes", "must be a list of at most 64 OAuth scope tokens (no spaces or quotes)"]);
  const hosts = s.apiHosts;
  if (
    !Array.isArray(hosts) ||
    hosts.length === 0 ||
    hosts.length > 16 ||
    !hosts.every((h) => typeof h === "string" && HOST.test(h))
  )
    problems.push(["apiHosts", "must list 1 to 16 lowercase host names (or *.example.com)"]);
  const raw = s.rawToken;
  if (raw !== undefined) {
    const reason = (raw as { reason?: unknown } | null)?.reason;
    if (
      typeof raw !== "object" ||
      raw === null ||
      Object.keys(raw).some((k) => k !== "reason") ||
      typeof reason !== "string" ||
      reason.trim().length === 0 ||
      reason.length > 1000
    )
      problems.push(["rawToken", "must be { reason } with a reason of 1 to 1000 characters"]);
  }
  return problems;
}

/** Declares an OAuth provider; throws AIRLOCK_SDK_PLUGIN_INVALID naming the field. */
export function defineOAuthProvider(spec: OAuthProviderSpec): DefinedOAuthProvider {
  const problems = oauthProviderProblems(spec);
  const first = problems[0];
  if (first !== undefined) {
    const who = typeof spec?.name === "string" ? `"${spec.name}"` : "";
    throw sdkError(
      "AIRLOCK_SDK_PLUGIN_INVALID",
      `defineOAuthProvider(${who}): ${problems.map(([f, p]) => `${f} ${p}`).join("; ")}`,
      { details: { field: first[0] } },
    );
  }
  return Object.freeze({
    kind: OAUTH_PROVIDER_KIND,
    name: spec.name,
    authorizationUrl: spec.authorizationUrl,
    tokenUrl: spec.tokenUrl,
    ...(spec.revocationUrl === undefined ? {} : { revocationUrl: spec.revocationUrl }),
    scopes: Object.freeze([...spec.scopes]) as unknown as string[],
    apiHosts: Object.freeze([...spec.apiHosts]) as unknown as string[],
    ...(spec.rawToken === undefined ? {} : { rawToken: Object.freeze({ reason: spec.rawToken.reason }) }),
  });
}

/** The manifest form of a provider (plain data, no marker). */
export function providerManifest(p: OAuthProviderSpec): OAuthProviderSpec {
  return {
    name: p.name,
    authorizationUrl: p.authorizationUrl,
    tokenUrl: p.tokenUrl,
    ...(p.revocationUrl === undefined ? {} : { revocationUrl: p.revocationUrl }),
    scopes: [...p.scopes],
    apiHosts: [...p.apiHosts],
    ...(p.rawToken === undefined ? {} : { rawToken: { reason: p.rawToken.reason } }),
  };
}

/** Whether egress host pattern `rule` admits every host `host` names (`*.a.com` covers `x.a.com` and `*.a.com`). */
export function hostPatternCovers(rule: string, host: string): boolean {
  if (rule === host) return true;
  if (!rule.startsWith("*.")) return false;
  const suffix = rule.slice(1); // ".a.com"
  const name = host.startsWith("*.") ? host.slice(1) : host;
  return name.endsWith(suffix) && name.length > suffix.length;
}

/** Two declarations of one provider name are the same provider only when every field agrees. */
export function sameProvider(a: OAuthProviderSpec, b: OAuthProviderSpec): boolean {
  return JSON.stringify(canonical(a)) === JSON.stringify(canonical(b));
}

function canonical(p: OAuthProviderSpec) {
  return {
    name: p.name,
    authorizationUrl: p.authorizationUrl,
    tokenUrl: p.tokenUrl,
    revocationUrl: p.revocationUrl ?? null,
    scopes: [...p.scopes].sort(),
    apiHosts: [...p.apiHosts].sort(),
  };
}
