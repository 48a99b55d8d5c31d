// ctx.oauth on the host side, and the bearer source the egress gate asks for ctx.fetch's
// `oauth` option. `requireToken(provider)` answers `{ok: true}` when the agent has a usable
// token (refreshed if near expiry), else — when the caller can send the person to a page (an
// MCP client with URL-mode elicitation) — sends the connect link that way and answers `{ok:
// true}` once the connection exists; otherwise (or when the person declines, or it is not done
// in time) `{ok: false, result}` with the connect link the tool returns as it is;
// `token(provider)` hands out the raw access token only when the provider's
// manifest entry declares `rawToken` (why) and the operator set `<provider>_oauth_raw_token` to
// "allow" for the agent — otherwise it reads `undefined` and a denial is audited.
// Invariants: the provider must be declared by the calling plugin's manifest (else
// AIRLOCK_OAUTH_PROVIDER_UNDECLARED, audited as a denial); a token is looked up for the grant's
// agent and the grant's end user (CallGrant.subject, "" for the agent itself) only — a connect
// link made here is sealed for that same pair; nothing but requireToken's answer and, where
// allowed, token() crosses into the isolate. The broker is reached through oauth-port.ts.

import type { OAuthProviderSpec, ToolResult } from "@airlock/sdk";
import { oauthSecretKeys } from "@airlock/sdk";
import type { SecretSource } from "../../state/secrets/index.ts";
import { denied } from "../bridge/denials.ts";
import type { CallGrant, Capability } from "../bridge/types.ts";
import { capabilityError } from "./errors.ts";
import type { ConnectTarget, OAuthTokens } from "./oauth-port.ts";

function declared(grant: CallGrant, name: unknown) {
  const provider =
    typeof name === "string" ? (grant.manifest.oauth ?? []).find((p) => p.name === name) : undefined;
  if (provider === undefined) {
    throw capabilityError(
      "AIRLOCK_OAUTH_PROVIDER_UNDECLARED",
      `plugin ${grant.namespace} declares no OAuth provider ${JSON.stringify(String(name)).slice(0, 80)}`,
    );
  }
  return provider;
}

// the call's end user (CallGrant.subject, checked by the pipeline), within the grant's agent only
const target = (grant: CallGrant, provider: string) => ({
  agent: grant.agent,
  subject: grant.subject,
  plugin: grant.namespace,
  provider,
});

/** The bearer for ctx.fetch(url, {oauth}); the gate has already checked declaration and host. */
export function bearerSource(broker: OAuthTokens) {
  return async (grant: CallGrant, name: string) =>
    broker.accessToken(target(grant, name), declared(grant, name));
}

function notConnected(provider: string, text: string, link: string | null): ToolResult {
  return {
    isError: true,
    content: [
      { type: "text", text },
      ...(link === null
        ? []
        : [
            { type: "resource_link" as const, uri: link, name: `Connect ${provider}`, mimeType: "text/html" },
          ]),
    ],
  };
}

/**
 * The tool result for a target that has no usable token: the connect link, or what the operator
 * must set first when the agent has no client id for the provider.
 */
export async function notConnectedResult(
  broker: OAuthTokens,
  secrets: SecretSource,
  who: ConnectTarget,
  provider: OAuthProviderSpec,
  toolId: string,
): Promise<ToolResult> {
  const keys = oauthSecretKeys(provider.name);
  const clientId = await secrets.get(who.agent, keys.clientId);
  if (clientId === undefined || clientId === "") {
    return notConnected(
      provider.name,
      `${toolId} needs a ${provider.name} account, and this host cannot connect one yet: the operator must first set the secret ${keys.clientId} (and ${keys.clientSecret}) for agent ${who.agent}. [AIRLOCK_OAUTH_CLIENT_MISSING]`,
      null,
    );
  }
  const link = broker.connectLink(who);
  return notConnected(
    provider.name,
    `${toolId} needs access to ${provider.name}${who.subject === "" ? "" : ` for ${who.subject}`} (scopes: ${provider.scopes.join(" ") || "none"}). Open this link to connect it, then try again (the link is valid for ${broker.linkTtlMs / 60_000} minutes): ${link} [AIRLOCK_OAUTH_NOT_CONNECTED]`,
    link,
  );
}

export function createOAuthCapability(options: { broker: OAuthTokens; secrets: SecretSource }): Capability {
  const { broker, secrets } = options;
  return {
    name: "oauth",
    methods: {
      async requireToken(grant, args) {
        const provider = declared(grant, args[0]);
        const who = target(grant, provider.name);
        if ((await broker.accessToken(who, provider)) !== undefined) return { ok: true };
        // A client that opens URLs gets the link as a URL-mode elicitation; the call waits
        // until the connection exists (the person completed the flow), or returns the link.
        const clientId = await secrets.get(grant.agent, oauthSecretKeys(provider.name).clientId);
        if (grant.openUrl !== undefined && clientId !== undefined && clientId !== "") {
          const outcome = await grant.openUrl(
            {
              message: `${grant.toolId} needs access to ${provider.name} (scopes: ${provider.scopes.join(" ") || "none"}) for agent ${grant.agent}. Connect it on this page; the call goes on once it is connected.`,
              url: broker.connectLink(who),
              done: async () => (await broker.accessToken(who, provider)) !== undefined,
            },
            grant.signal,
          );
          if (outcome === "done") return { ok: true };
        }
        return { ok: false, result: await notConnectedResult(broker, secrets, who, provider, grant.toolId) };
      },
      async token(grant, args) {
        const provider = declared(grant, args[0]);
        if (provider.rawToken === undefined)
          return denied(undefined, "AIRLOCK_OAUTH_RAW_TOKEN_REFUSED", "raw_token_not_declared");
        const allowed = await secrets.get(grant.agent, oauthSecretKeys(provider.name).rawToken);
        if (allowed !== "allow")
          return denied(undefined, "AIRLOCK_OAUTH_RAW_TOKEN_REFUSED", "not_allowed_by_operator");
        return broker.accessToken(target(grant, provider.name), provider);
      },
    },
  };
}
