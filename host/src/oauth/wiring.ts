// Builds the brokered-credentials parts of a host from its store, vault and options: the OAuth
// broker, the `oauth` and `models` capabilities, the bearer source ctx.fetch's gate asks, and
// the admin surface (AirlockHost.oauth / .models). Host-side requests to providers go through
// the operator's address rules (egress.allowPrivate) and the host's resolver.
import type { Capability } from "../bridge/types.ts";
import type { ResolvedHostOptions } from "../config.ts";
import { compileAllowance } from "../egress/address.ts";
import { systemResolver } from "../egress/resolve.ts";
import { createModelsCapability } from "../models/capability.ts";
import type { SecretSource } from "../secrets/index.ts";
import type { Vault } from "../secrets/vault.ts";
import type { AuditInput, Store } from "../store/types.ts";
import { createBrokerAdmin, type ModelsAdmin, type OAuthAdmin } from "./admin.ts";
import { createOAuthBroker } from "./broker.ts";
import { bearerSource, createOAuthCapability } from "./capability.ts";
import type { EndpointDeps } from "./endpoint.ts";

export interface Brokered {
  capabilities: Capability[];
  bearer: ReturnType<typeof bearerSource>;
  admin: { oauth: OAuthAdmin; models: ModelsAdmin };
}

export function createBrokered(deps: {
  store: Store;
  vault: Vault;
  secrets: SecretSource;
  audit: (entry: AuditInput) => Promise<void>;
  options: ResolvedHostOptions;
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
  return {
    capabilities: [
      createOAuthCapability({ broker, secrets }),
      createModelsCapability({ store, vault, endpoint, audit, clock: options.clock }),
    ],
    bearer: bearerSource(broker),
    admin: createBrokerAdmin({
      store,
      vault,
      broker,
      audit,
      clock: options.clock,
      configuredPublicUrl: options.publicUrl,
      publicUrlHolder: holder,
    }),
  };
}
