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
// Layout: broker-context.ts holds the shared helpers (base URL, audit, client credentials, token
// requests, saving), broker-flow.ts the authorization-code flow, broker-connections.ts the stored
// connections (refresh, disconnect, list); this file binds them into the broker.
import type { OAuthProviderSpec } from "@airlock/sdk";
import type { ConnectTarget, OAuthConnectionView } from "../../contracts/oauth.ts";
import { disconnectConnection, freshToken, listConnections } from "./broker-connections.ts";
import { createBrokerContext, type OAuthBrokerDeps } from "./broker-context.ts";
import { beginFlow, completeFlow, connectLink } from "./broker-flow.ts";

export type { ConnectTarget, OAuthConnectionView };
export {
  CALLBACK_PATH,
  CONNECT_PATH,
  LINK_TTL_MS,
  type OAuthBrokerDeps,
  REFRESH_MARGIN_MS,
} from "./broker-context.ts";

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

export function createOAuthBroker(deps: OAuthBrokerDeps): OAuthBroker {
  const ctx = createBrokerContext(deps);
  const inFlight = new Map<string, Promise<string | undefined>>();

  return {
    connectLink: (target) => connectLink(ctx, target),
    begin: (ticket) => beginFlow(ctx, ticket),
    complete: (query) => completeFlow(ctx, query),

    accessToken(target: ConnectTarget, spec: OAuthProviderSpec) {
      // One refresh at a time per connection in this process: two tool calls finding the token
      // stale together share the refresh (a rotating provider would revoke the loser's grant).
      const key = JSON.stringify([target.agent, target.subject, target.provider]);
      const running = inFlight.get(key);
      if (running !== undefined) return running;
      const work = freshToken(ctx, target, spec).finally(() => inFlight.delete(key));
      inFlight.set(key, work);
      return work;
    },

    disconnect: (agent, provider, subject) => disconnectConnection(ctx, agent, provider, subject),
    list: (agent) => listConnections(ctx, agent),
  };
}
