// AirlockHost.models: the operator's connections to model providers (base URL, model, an API key
// kept encrypted), their grants to an agent's plugin with a budget, and the usage counted against
// a grant in its current period.
// Contract: `createModelsAdmin` answers the ModelsAdmin of the library API; every change runs
// through the `audited` wrapper admin.ts gives it (kind admin, refusals included).
// Invariants: no view carries a provider key (a connection says `keySet`); a connection name
// matches CONNECTION_NAME and its base URL is http(s) without credentials; a grant names an
// existing agent, a plugin namespace and an existing connection; a budget is a whole number ≥ 0
// or null; bad input is AIRLOCK_MODEL_CONNECTION_INVALID and writes nothing.
import type { ModelGrantView, ModelsAdmin } from "../../contracts/oauth.ts";
import { periodKey } from "../../isolation/capabilities/models.ts";
import type { Vault } from "../../state/secrets/vault.ts";
import type { BudgetPeriod, ModelGrantRecord } from "../../state/store/broker-types.ts";
import type { Store } from "../../state/store/types.ts";
import { brokerError } from "./errors.ts";

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

/** Runs `run` and audits it (kind admin) with `details`, as a success or as its refusal. */
export type Audited = <T>(
  action: string,
  agent: string | null,
  plugin: string | null,
  details: Record<string, unknown>,
  run: () => Promise<T>,
) => Promise<T>;

export interface ModelsAdminDeps {
  store: Store;
  vault: Vault;
  clock: () => number;
  audited: Audited;
}

export function createModelsAdmin(deps: ModelsAdminDeps): ModelsAdmin {
  const { store, vault, audited } = deps;
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

  return {
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
}
