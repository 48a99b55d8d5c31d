// Agent (instance) routes: list and create agents, their secrets and their knowledge level.
// Invariants: secret values are only ever returned as the host's SecretView (sensitive ones
// masked); a token issued on creation is returned once and never again.
import { defineRoute, type RouteSpec } from "../route-table.ts";
import {
  agentsResponse,
  createAgentBody,
  createAgentResponse,
  deleteSecretResponse,
  knowledgeResponse,
  secretParams,
  secretsResponse,
  setKnowledgeBody,
  setSecretsBody,
  slugParams,
} from "../schemas.ts";

export const instanceRoutes: RouteSpec[] = [
  defineRoute({
    method: "get",
    path: "/api/agents",
    operationId: "listAgents",
    summary: "Every agent (instance) with its knowledge level.",
    tag: "instances",
    access: "operator",
    responses: { 200: { description: "The agents.", schema: agentsResponse } },
    async handler({ host }) {
      return { json: { agents: await host.listAgents() } };
    },
  }),
  defineRoute({
    method: "post",
    path: "/api/agents",
    operationId: "createAgent",
    summary:
      "Creates an agent (knowledge level `read`, no tools enabled), or returns the existing one; optionally issues a token.",
    tag: "instances",
    access: "operator",
    body: createAgentBody,
    responses: {
      201: {
        description: "The agent, and its token when asked for (shown once).",
        schema: createAgentResponse,
      },
    },
    async handler({ host, body }) {
      // Idempotent: an existing agent is returned as it is (200), a new one is 201.
      const status = (await host.getAgent(body.slug)) === null ? 201 : 200;
      const agent = await host.createAgent(body.slug);
      if (body.token !== true) return { status, json: { agent } };
      const token = await host.issueToken("agent", agent.slug, "created by the admin API");
      return { status, json: { agent, token } };
    },
  }),
  defineRoute({
    method: "get",
    path: "/api/agents/:slug/secrets",
    operationId: "listSecrets",
    summary: "The secrets the agent's tools declare: set or not; sensitive values masked.",
    tag: "secrets",
    access: "operator",
    params: slugParams,
    responses: { 200: { description: "The secrets.", schema: secretsResponse } },
    async handler({ host, params }) {
      return { json: { secrets: await host.listSecrets(params.slug) } };
    },
  }),
  defineRoute({
    method: "put",
    path: "/api/agents/:slug/secrets",
    operationId: "setSecrets",
    summary: "Sets secret values for the agent (stored encrypted); keys not named are left as they are.",
    tag: "secrets",
    access: "operator",
    params: slugParams,
    body: setSecretsBody,
    responses: { 200: { description: "The secrets after the change.", schema: secretsResponse } },
    async handler({ host, params, body }) {
      return { json: { secrets: await host.setSecrets(params.slug, body.values) } };
    },
  }),
  defineRoute({
    method: "delete",
    path: "/api/agents/:slug/secrets/:key",
    operationId: "deleteSecret",
    summary: "Deletes one secret of the agent.",
    tag: "secrets",
    access: "operator",
    params: secretParams,
    responses: { 200: { description: "Whether a value was deleted.", schema: deleteSecretResponse } },
    async handler({ host, params }) {
      return { json: { key: params.key, deleted: await host.deleteSecret(params.slug, params.key) } };
    },
  }),
  defineRoute({
    method: "get",
    path: "/api/agents/:slug/knowledge",
    operationId: "getKnowledgeLevel",
    summary: "The agent's knowledge level (none, read, write, manage).",
    tag: "instances",
    access: "operator",
    params: slugParams,
    responses: { 200: { description: "The level.", schema: knowledgeResponse } },
    async handler({ host, params }) {
      const agent = await host.getAgent(params.slug);
      return { json: { level: agent?.knowledgeLevel ?? "none" } };
    },
  }),
  defineRoute({
    method: "put",
    path: "/api/agents/:slug/knowledge",
    operationId: "setKnowledgeLevel",
    summary: "Sets the agent's knowledge level; `none` removes ctx.knowledge from its tools.",
    tag: "instances",
    access: "operator",
    params: slugParams,
    body: setKnowledgeBody,
    responses: { 200: { description: "The level now in force.", schema: knowledgeResponse } },
    async handler({ host, params, body }) {
      await host.setKnowledgeLevel(params.slug, body.level);
      return { json: { level: body.level } };
    },
  }),
];
