// The authorization-code flow with PKCE (S256) of the OAuth broker: a sealed connect link, its
// opening (a flow recorded, the provider's authorization URL answered), and the provider's
// redirect back (the code exchanged, the tokens stored).
// Contract: each function takes the broker's context (broker-context.ts) explicitly; a refusal is
// audited (oauth.connect.start or oauth.connect) and thrown with its code.
// Invariants: a connect link is sealed by the vault (agent, subject, plugin, provider, expiry),
// so it cannot be forged or pointed at another agent; the `state` is 32 random bytes, stored with
// the encrypted verifier and consumed once (a replayed, forged or expired callback gets
// AIRLOCK_OAUTH_STATE_INVALID); the redirect URI sent at the token request is the one sent at
// authorization; the provider's error is reduced to [\w.-]{0,64} before it is shown or audited.
import { createHash, randomBytes } from "node:crypto";
import {
  activeProvider,
  type BrokerContext,
  b64url,
  CALLBACK_PATH,
  CONNECT_PATH,
  type ConnectTarget,
  LINK_PURPOSE,
  LINK_TTL_MS,
} from "./broker-context.ts";
import { brokerError } from "./errors.ts";

/** A link that starts the flow in a browser (valid LINK_TTL_MS). */
export function connectLink(ctx: BrokerContext, target: ConnectTarget): string {
  const sealed = ctx.vault.encrypt(
    JSON.stringify({ p: LINK_PURPOSE, v: { ...target, e: ctx.deps.clock() + LINK_TTL_MS } }),
  );
  return `${ctx.base()}${CONNECT_PATH}/${sealed}`;
}

/** Opens a connect link: records the flow and answers the provider's authorization URL. */
export async function beginFlow(ctx: BrokerContext, ticket: string): Promise<string> {
  let target: (ConnectTarget & { e: number }) | null = null;
  try {
    const opened = JSON.parse(ctx.vault.decrypt(ticket)) as {
      p?: unknown;
      v?: ConnectTarget & { e: number };
    };
    if (opened.p === LINK_PURPOSE && opened.v !== undefined) target = opened.v;
  } catch {
    target = null; // not sealed by this host's key, or altered: refused below
  }
  if (target === null || typeof target.e !== "number" || target.e <= ctx.deps.clock()) {
    return ctx.refused(
      target ?? {},
      "oauth.connect.start",
      brokerError("AIRLOCK_OAUTH_LINK_INVALID", "this connect link is not valid (altered, or expired)"),
    );
  }
  const { agent, subject, plugin, provider } = target;
  const who = { agent, subject, plugin, provider };
  const spec = await activeProvider(ctx.store, plugin, provider);
  if (spec === undefined) {
    return ctx.refused(
      who,
      "oauth.connect.start",
      brokerError("AIRLOCK_OAUTH_LINK_INVALID", `no active plugin ${plugin} declares provider ${provider}`),
    );
  }
  const { clientId } = await ctx
    .clientCredentials(agent, provider)
    .catch((e: unknown) => ctx.refused(who, "oauth.connect.start", e));
  const state = b64url(randomBytes(32));
  const verifier = b64url(randomBytes(48));
  const redirectUri = `${ctx.base()}${CALLBACK_PATH}`;
  await ctx.store.putOAuthFlow({
    state,
    agent,
    subject,
    provider,
    plugin,
    verifier: ctx.vault.encrypt(verifier),
    redirectUri,
    expiresAt: ctx.deps.clock() + LINK_TTL_MS,
  });
  await ctx.audit(who, "oauth.connect.start", {});
  const url = new URL(spec.authorizationUrl);
  url.searchParams.set("response_type", "code");
  url.searchParams.set("client_id", clientId);
  url.searchParams.set("redirect_uri", redirectUri);
  if (spec.scopes.length > 0) url.searchParams.set("scope", spec.scopes.join(" "));
  url.searchParams.set("state", state);
  url.searchParams.set("code_challenge", b64url(createHash("sha256").update(verifier).digest()));
  url.searchParams.set("code_challenge_method", "S256");
  return url.href;
}

/** Handles the provider's redirect back: exchanges the code, stores the token. */
export async function completeFlow(
  ctx: BrokerContext,
  query: Record<string, string | undefined>,
): Promise<ConnectTarget> {
  const state = query.state ?? "";
  const flow = state === "" ? null : await ctx.store.takeOAuthFlow(state, ctx.deps.clock());
  if (flow === null) {
    return ctx.refused(
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
    return ctx.refused(
      target,
      "oauth.connect",
      brokerError("AIRLOCK_OAUTH_DENIED", `${flow.provider} answered: ${providerError}`, {
        provider: flow.provider,
        oauthError: providerError,
      }),
    );
  }
  const spec = await activeProvider(ctx.store, flow.plugin, flow.provider);
  if (spec === undefined || query.code === undefined || query.code === "") {
    return ctx.refused(
      target,
      "oauth.connect",
      brokerError(
        "AIRLOCK_OAUTH_STATE_INVALID",
        "the answer carries no code, or the provider is no longer declared",
      ),
    );
  }
  const tokens = await ctx
    .tokenRequest(spec, flow.agent, {
      grant_type: "authorization_code",
      code: query.code,
      redirect_uri: flow.redirectUri,
      code_verifier: ctx.vault.decrypt(flow.verifier),
    })
    .catch((e: unknown) => ctx.refused(target, "oauth.connect", e));
  const record = await ctx.save(target, tokens, spec);
  await ctx.audit(target, "oauth.connect", { details: { scopes: record.scopes } });
  return target;
}
