// People-in-the-loop policy routes: who approves an agent's tools that are not read-only
// (operator, the person at the client, or auto; per agent and per tool) and which missing
// secrets the person may enter on the host's page. A thin layer over host.getPeoplePolicy /
// setPeoplePolicy, which validate and audit.
import { z } from "zod";
import { defineRoute, type RouteSpec } from "../route-table.ts";
import { slugParams } from "../schemas.ts";

const mode = z.enum(["operator", "client", "auto"]);
const policy = z.object({
  approval: mode,
  destructive: mode.nullable(),
  tools: z.record(z.string(), mode),
  askSecrets: z.array(z.string()),
});
const policyResponse = z.object({ policy });
const patchBody = z.strictObject({
  approval: mode.optional(),
  destructive: mode.nullable().optional(),
  tools: z.record(z.string(), mode.nullable()).optional(),
  askSecrets: z.array(z.string()).optional(),
});

export const peopleRoutes: RouteSpec[] = [
  defineRoute({
    method: "get",
    path: "/api/agents/:slug/people",
    operationId: "getPeoplePolicy",
    summary:
      "The agent's approval policy (default and per tool) and the secrets a person may enter on the host's page.",
    tag: "instances",
    access: "operator",
    params: slugParams,
    responses: { 200: { description: "The policy in force.", schema: policyResponse } },
    async handler({ host, params }) {
      return { json: { policy: await host.getPeoplePolicy(params.slug) } };
    },
  }),
  defineRoute({
    method: "patch",
    path: "/api/agents/:slug/people",
    operationId: "setPeoplePolicy",
    summary:
      "Changes the policy: fields left out keep their value, a tool mapped to null loses its override (audited).",
    tag: "instances",
    access: "operator",
    params: slugParams,
    body: patchBody,
    responses: { 200: { description: "The policy now in force.", schema: policyResponse } },
    async handler({ host, params, body }) {
      const patch = Object.fromEntries(Object.entries(body).filter(([, v]) => v !== undefined));
      return { json: { policy: await host.setPeoplePolicy(params.slug, patch) } };
    },
  }),
];
