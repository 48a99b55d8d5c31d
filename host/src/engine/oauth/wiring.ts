// Builds the brokered-credentials parts of a host from its store, vault and options: the OAuth
// broker, the `oauth` and `models` capabilities, the bearer source ctx.fetch's gate asks, and
// the admin surface (AirlockHost.oauth / .models), and the bearer remote MCP servers on the broker
// get (remoteBearer). Host-side requests to providers go through
// the operator's address rules (egress.allowPrivate) and the host's resolver.
import type { OAuthProviderSpec, ToolResult } from "@airlock/sdk";
import type { Capability } from "../../isolation/bridge/types.ts";
import { createModelsCapability } from "../../isolation/capabilities/models.ts";
import {
  bearerSource,
  createOAuthCapability,
  notConnectedResult,
} from "../../isolation/capabilities/oauth.ts";
import type { OAuthTokens, ProviderPost } from "../../isolation/capabilities/oauth-port.ts";
import { compileAllowance } from "../../isolation/egress/address.ts";
import { systemResolver } from "../../isolation/egress/resolve.ts";
import type { EgressPolicy, Resolver } from "../../isolation/egress/types.ts";
import type { SecretSource } from "../../state/secrets/index.ts";
import type { Vault } from "../../state/secrets/vault.ts";
import type { AuditInput, Store } from "../../state/store/types.ts";
import { createBrokerAdmin, type ModelsAdmin, type OAuthAdmin } from "./admin.ts";
import { createOAuthBroker, LINK_TTL_MS } from "./broker.ts";
import { type EndpointDeps, postToEndpoint } from "./endpoint.ts";

/** The broker's answer for a remote MCP server that uses it: the token, or the result to answer instead. */
export type RemoteBearer = (
  agent: string,
  plugin: string,
  provider: OAuthProviderSpec,
  toolId: string,
) => Promise<{ token: string } | { result: ToolResult }>;

/** The host options the broker reads (config.ts's ResolvedHostOptions has them). */
export interface BrokerOptions {
  /** The resolver host-side requests to providers ask; default the system's. */
  resolver: Resolver | undefined;
  /** The operator's address rules: `allowPrivate` applies to requests to providers too. */
  egress: Pick<EgressPolicy, "allowPrivate">;
  clock: () => number;
  /** The operator's configured public URL (`--public-url`, AIRLOCK_PUBLIC_URL), if any. */
  publicUrl: string | undefined;
}

export interface Brokered {
  capabilities: Capability[];
  bearer: ReturnType<typeof bearerSource>;
  admin: { oauth: OAuthAdmin; models: ModelsAdmin; remoteBearer: RemoteBearer };
}

export function createBrokered(deps: {
  store: Store;
  vault: Vault;
  secrets: SecretSource;
  audit: (entry: AuditInput) => Promise<void>;
  options: BrokerOptions;
}): Brokered {
  const { store, vault, secrets, audit, options } = deps;
  const endpoint: EndpointDeps = {
    resolver: options.resolver ?? systemResolver,
    allowance: compileAllowance(options.egress.allowPrivate),
  };
  const holder: { url: string | undefined } = { url: undefined };
  const publicUrl = () => options.publicUrl ?? holder.url;
  const broker = createOAuthBroker({
    store,
    vault,
    secrets,
    endpoint,
    audit,
    clock: options.clock,
    publicUrl,
  });
  // the capabilities' ports (isolation/capabilities/oauth-port.ts), implemented by the broker
  const tokens: OAuthTokens = {
    connectLink: (target) => broker.connectLink(target),
    accessToken: (target, provider) => broker.accessToken(target, provider),
    linkTtlMs: LINK_TTL_MS,
  };
  const post: ProviderPost = (url, body, headers) => postToEndpoint(url, body, headers, endpoint);
  return {
    capabilities: [
      createOAuthCapability({ broker: tokens, secrets }),
      createModelsCapability({ store, vault, post, audit, clock: options.clock }),
    ],
    bearer: bearerSource(tokens),
    admin: {
      ...createBrokerAdmin({
        store,
        vault,
        broker,
        audit,
        clock: options.clock,
        configuredPublicUrl: options.publicUrl,
        publicUrlHolder: holder,
      }),
      // Remote MCP servers on the broker (remote/context.ts): the token never leaves the host.
      async remoteBearer(agent, plugin, provider, toolId) {
        const who = { agent, subject: "", plugin, provider: provider.name };
        const token = await broker.accessToken(who, provider);
        if (token !== undefined) return { token };
        return { result: await notConnectedResult(tokens, secrets, who, provider, toolId) };
      },
    },
  };
}
