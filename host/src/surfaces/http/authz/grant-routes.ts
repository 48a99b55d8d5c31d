// Admin API routes of the OAuth grants an operator gave MCP clients on the consent page: list
// an agent's grants (client, audience, when, whether revoked) and revoke one, which ends every
// access and refresh token of that grant at once.
// Invariants: operator access only (the console calls these with its session); a listing
// carries no token, code or hash; a revocation is audited (grants.ts revokeGrantOf).
import { z } from "zod";
import type { AirlockHost } from "../../../contracts/host.ts";
import type { AuthGrantRecord } from "../../../contracts/records.ts";
import { apiError } from "../errors.ts";
import { defineRoute, type RouteSpec } from "../route-table.ts";
import { slug } from "../schemas.ts";
import { revokeGrantOf } from "./access.ts";

const grantView = z.object({
  id: z.string(),
  clientId: z.string(),
  clientName: z.string(),
  agent: z.string(),
  resource: z.string(),
  createdAt: z.string(),
  revokedAt: z.string().nullable(),
});

const viewOf = (g: AuthGrantRecord): z.infer<typeof grantView> => ({ ...g });

async function knownAgent(host: AirlockHost, agent: string): Promise<void> {
  if ((await host.getAgent(agent)) === null) {
    throw apiError("AIRLOCK_API_UNKNOWN_AGENT", `no agent has slug ${JSON.stringify(agent)}`);
  }
}

export const grantRoutes: RouteSpec[] = [
  defineRoute({
    method: "get",
    path: "/api/agents/:slug/oauth-grants",
    operationId: "listOAuthGrants",
    summary: "The OAuth grants MCP clients hold for this agent (newest first, revoked ones included).",
    tag: "instances",
    access: "operator",
    params: z.strictObject({ slug }),
    responses: { 200: { description: "The grants.", schema: z.object({ grants: z.array(grantView) }) } },
    async handler({ host, params }) {
      await knownAgent(host, params.slug);
      return { json: { grants: (await host.authorization.listGrants(params.slug)).map(viewOf) } };
    },
  }),
  defineRoute({
    method: "delete",
    path: "/api/agents/:slug/oauth-grants/:id",
    operationId: "revokeOAuthGrant",
    summary: "Revokes an OAuth grant: its access and refresh tokens are refused from then on.",
    tag: "instances",
    access: "operator",
    params: z.strictObject({ slug, id: z.string().regex(/^alg_[A-Za-z0-9_-]{1,64}$/, "a grant id alg_…") }),
    responses: { 200: { description: "The revoked grant.", schema: z.object({ grant: grantView }) } },
    async handler({ host, params }) {
      await knownAgent(host, params.slug);
      return { json: { grant: viewOf(await revokeGrantOf(host, params.slug, params.id)) } };
    },
  }),
];
