// What the console's "Connections & models" tab needs besides the broker's own admin routes
// (api/routes/oauth.ts): which OAuth providers the active plugins declare (so an operator can
// start a connect link for one) and which plugins declare that they call models (so a grant can
// be given to one). Invariants: operator access only; read-only; manifests only — no client id,
// client secret, token or provider key is read or answered here.
import { z } from "zod";
import type { AirlockHost } from "../../../contracts/host.ts";
import { defineRoute, type RouteSpec } from "../route-table.ts";

async function activeManifests(host: AirlockHost) {
  return (await host.listActiveVersions()).map((v) => v.manifest);
}

export const consoleBrokerRoutes: RouteSpec[] = [
  defineRoute({
    method: "get",
    path: "/api/broker/declared",
    operationId: "listDeclaredBrokerNeeds",
    summary:
      "The OAuth providers the active plugins declare (with scopes and API hosts) and the plugins that call models (with why).",
    tag: "oauth",
    access: "operator",
    responses: {
      200: {
        description: "What the active plugins declare.",
        schema: z.object({
          providers: z.array(
            z.object({
              plugin: z.string(),
              provider: z.string(),
              scopes: z.array(z.string()),
              apiHosts: z.array(z.string()),
            }),
          ),
          models: z.array(z.object({ plugin: z.string(), reason: z.string() })),
        }),
      },
    },
    async handler({ host }) {
      const providers = [];
      const models = [];
      for (const m of await activeManifests(host)) {
        for (const p of m.oauth ?? [])
          providers.push({ plugin: m.namespace, provider: p.name, scopes: p.scopes, apiHosts: p.apiHosts });
        if (m.models !== undefined) models.push({ plugin: m.namespace, reason: m.models.reason });
      }
      return { json: { providers, models } };
    },
  }),
];
