// What operators (and the host's own pages) do with brokered credentials, as the library API
// exposes it: AirlockHost.oauth (connections, connect links, disconnect, the two flow steps the
// public /oauth routes drive) and AirlockHost.models (connections to model providers, their
// grants to an agent's plugin with a budget, and the usage counted against it).
// Invariants: no view ever carries a token, a client secret or a provider key (a connection
// says `keySet`); every change is audited (kind admin) with what changed, never a value; a
// grant names an existing connection; a connect link is issued only for a provider the active
// version of the plugin declares; an end user (`subject`) is checked like a caller's
// (subject.ts, AIRLOCK_OAUTH_SUBJECT_INVALID).
import { hasCode } from "@airlock/sdk/errors";
import type { ModelConnectionView, ModelGrantView, ModelsAdmin, OAuthAdmin } from "../../contracts/oauth.ts";
import { periodKey } from "../../isolation/capabilities/models.ts";
import type { Vault } from "../../state/secrets/vault.ts";
import type { BudgetPeriod, ModelGrantRecord } from "../../state/store/broker-types.ts";
import type { AuditInput, Store } from "../../state/store/types.ts";
import type { OAuthBroker } from "./broker.ts";
import { brokerError } from "./errors.ts";
import { subjectRefusal } from "./subject.ts";

export type { ModelConnectionView, ModelGrantView, ModelsAdmin, OAuthAdmin };

/** An operator's subject for a link or a disconnect: "" / unset is the agent itself. */
function checkSubject(subject: string | undefined): void {
  const why = subjectRefusal(subject);
  if (why !== null) throw brokerError("AIRLOCK_OAUTH_SUBJECT_INVALID", why);
}

const CONNECTION_NAME = /^[a-z][a-z0-9-]{0,63}$/;
const PERIODS: readonly BudgetPeriod[] = ["day", "month", "total"];

function invalid(message: string): never {
  throw brokerError("AIRLOCK_MODEL_CONNECTION_INVALID", message);
}

function checkBudget(value: unknown, what: string): number | null {
  if (value === undefined || value === null) return null;
  if (!Number.isSafeInteger(value) || (value as number) < 0)
    invalid(`${what} must be a whole number ≥ 0, or null`);
  return value as number;
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
  const audited = async <T>(
    action: string,
    agent: string | null,
    plugin: string | null,
    details: Record<string, unknown>,
    run: () => Promise<T>,
  ) => {
    try {
      const value = await run();
      await admin(action, agent, plugin, details);
      return value;
    } catch (error) {
      await admin(action, agent, plugin, details, error);
      throw error;
    }
  };

  const grantView = async (g: ModelGrantRecord): Promise<ModelGrantView> => {
    const period = periodKey(g.period, deps.clock());
    const usage = await store.getModelUsage(g.agent, g.plugin, period);
    return {
      plugin: g.plugin,
      connection: g.connection,
      maxTokens: g.maxTokens,
      maxCalls: g.maxCalls,
      period: g.period,
      used: { period, calls: usage?.calls ?? 0, tokens: usage?.tokens ?? 0 },
    };
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

  const models: ModelsAdmin = {
    async setConnection(input) {
      const { name, baseUrl, model, apiKey } = input ?? ({} as typeof input);
      return audited(
        "model.connection.set",
        null,
        null,
        { connection: String(name).slice(0, 64) },
        async () => {
          if (typeof name !== "string" || !CONNECTION_NAME.test(name))
            invalid(`a connection name matches ${CONNECTION_NAME}`);
          let url: URL;
          try {
            url = new URL(String(baseUrl));
          } catch {
            return invalid("baseUrl must be an http(s) URL, e.g. https://api.openai.com/v1");
          }
          if (
            (url.protocol !== "https:" && url.protocol !== "http:") ||
            url.username !== "" ||
            url.password !== ""
          )
            invalid("baseUrl must be an http(s) URL without credentials");
          if (typeof model !== "string" || model.length === 0 || model.length > 200)
            invalid("model must be a name of 1 to 200 characters");
          if (typeof apiKey !== "string" || apiKey.length === 0 || apiKey.length > 8192)
            invalid("apiKey must be a non-empty string (at most 8192 characters)");
          const record = {
            name,
            baseUrl: url.href.replace(/\/+$/, ""),
            model,
            keyCiphertext: vault.encrypt(apiKey),
            updatedAt: new Date(deps.clock()).toISOString(),
          };
          await store.putModelConnection(record);
          return { name, baseUrl: record.baseUrl, model, keySet: true as const, updatedAt: record.updatedAt };
        },
      );
    },
    async connections() {
      return (await store.listModelConnections()).map((c) => ({
        name: c.name,
        baseUrl: c.baseUrl,
        model: c.model,
        keySet: true as const,
        updatedAt: c.updatedAt,
      }));
    },
    removeConnection: (name) =>
      audited("model.connection.remove", null, null, { connection: name }, () =>
        store.deleteModelConnection(name),
      ),
    async grant(agent, plugin, input) {
      return audited("model.grant", agent, plugin, { connection: input?.connection ?? null }, async () => {
        if ((await store.getAgent(agent)) === null) invalid(`there is no agent ${agent}`);
        if (!/^[a-z][a-z0-9-]{1,31}$/.test(plugin))
          invalid(`"${plugin.slice(0, 40)}" is not a plugin namespace`);
        if ((await store.getModelConnection(String(input?.connection))) === null)
          invalid(`there is no model connection ${JSON.stringify(String(input?.connection)).slice(0, 80)}`);
        const period = input.period ?? "day";
        if (!PERIODS.includes(period)) invalid(`period must be one of ${PERIODS.join(", ")}`);
        const record: ModelGrantRecord = {
          agent,
          plugin,
          connection: input.connection,
          maxTokens: checkBudget(input.maxTokens, "maxTokens"),
          maxCalls: checkBudget(input.maxCalls, "maxCalls"),
          period,
          updatedAt: new Date(deps.clock()).toISOString(),
        };
        await store.putModelGrant(record);
        return grantView(record);
      });
    },
    revoke: (agent, plugin) =>
      audited("model.revoke", agent, plugin, {}, () => store.deleteModelGrant(agent, plugin)),
    async grants(agent) {
      return Promise.all((await store.listModelGrants(agent)).map(grantView));
    },
  };
  return { oauth, models };
}
