// What operators (and the host's own pages) do with brokered credentials, as the library API
// exposes it: AirlockHost.oauth (connections, connect links, disconnect, the two flow steps the
// public /oauth routes drive) and AirlockHost.models (connections to model providers, their
// grants to an agent's plugin with a budget, and the usage counted against it).
// Invariants: no view ever carries a token, a client secret or a provider key (a connection
// says `keySet`); every change is audited (kind admin) with what changed, never a value; a
// grant names an existing connection; a connect link is issued only for a provider the active
// version of the plugin declares; an end user (`subject`) is checked like a caller's
// (subject.ts, AIRLOCK_OAUTH_SUBJECT_INVALID).
// Layout: the model connections and grants (AirlockHost.models) are in models-admin.ts.
import { hasCode } from "@airlock/sdk/errors";
import type { ModelConnectionView, ModelGrantView, ModelsAdmin, OAuthAdmin } from "../../contracts/oauth.ts";
import type { Vault } from "../../state/secrets/vault.ts";
import type { AuditInput, Store } from "../../state/store/types.ts";
import type { OAuthBroker } from "./broker.ts";
import { brokerError } from "./errors.ts";
import { type Audited, createModelsAdmin } from "./models-admin.ts";
import { subjectRefusal } from "./subject.ts";

export type { ModelConnectionView, ModelGrantView, ModelsAdmin, OAuthAdmin };

/** An operator's subject for a link or a disconnect: "" / unset is the agent itself. */
function checkSubject(subject: string | undefined): void {
  const why = subjectRefusal(subject);
  if (why !== null) throw brokerError("AIRLOCK_OAUTH_SUBJECT_INVALID", why);
}

interface AdminDeps {
  store: Store;
  vault: Vault;
  broker: OAuthBroker;
  audit: (entry: AuditInput) => Promise<void>;
  clock: () => number;
  /** Configured public URL (option or AIRLOCK_PUBLIC_URL); the admin server's own URL otherwise. */
  configuredPublicUrl: string | undefined;
  publicUrlHolder: { url: string | undefined };
}

export function createBrokerAdmin(deps: AdminDeps): { oauth: OAuthAdmin; models: ModelsAdmin } {
  const { store, vault, broker } = deps;
  const admin = async (
    action: string,
    agent: string | null,
    plugin: string | null,
    details: Record<string, unknown>,
    error?: unknown,
  ) => {
    await deps.audit({
      agent,
      plugin,
      tool: null,
      conversationId: null,
      kind: "admin",
      action,
      // a refusal (4xx) is a denial; a failure of ours (5xx) is not
      allowed: error === undefined || !((error as { status?: number }).status! < 500),
      success: error === undefined,
      error: error === undefined ? null : hasCode(error) ? error.code : "AIRLOCK_INTERNAL",
      durationMs: null,
      details,
    });
  };
  const audited: Audited = async (action, agent, plugin, details, run) => {
    try {
      const value = await run();
      await admin(action, agent, plugin, details);
      return value;
    } catch (error) {
      await admin(action, agent, plugin, details, error);
      throw error;
    }
  };

  const oauth: OAuthAdmin = {
    publicUrl: () => deps.configuredPublicUrl ?? deps.publicUrlHolder.url,
    configuredPublicUrl: () => deps.configuredPublicUrl,
    adoptPublicUrl(url) {
      deps.publicUrlHolder.url ??= url;
    },
    connections: (agent) => broker.list(agent),
    async connectLink(agent, plugin, provider, subject = "") {
      const details = subject === "" ? { provider } : { provider, subject: subject.slice(0, 128) };
      return audited("oauth.link", agent, plugin, details, async () => {
        checkSubject(subject);
        const activation = await store.getActivation(plugin);
        const record = activation === null ? null : await store.getInstalledPlugin(plugin, activation.active);
        if (!(record?.manifest.oauth ?? []).some((p) => p.name === provider)) {
          throw brokerError(
            "AIRLOCK_OAUTH_LINK_INVALID",
            `no active plugin ${plugin} declares provider ${provider}`,
          );
        }
        if ((await store.getAgent(agent)) === null)
          throw brokerError("AIRLOCK_OAUTH_LINK_INVALID", `there is no agent ${agent}`);
        return broker.connectLink({ agent, subject, plugin, provider });
      });
    },
    async disconnect(agent, provider, subject) {
      checkSubject(subject);
      return broker.disconnect(agent, provider, subject);
    },
    begin: (ticket) => broker.begin(ticket),
    complete: (query) => broker.complete(query),
  };

  const models = createModelsAdmin({ store, vault, clock: deps.clock, audited });
  return { oauth, models };
}
