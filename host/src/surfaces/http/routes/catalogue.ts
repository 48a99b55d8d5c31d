// Catalogue routes: the tools of installed plugins (never harness tools), per-agent enablement
// and what each agent is served, and the tools' presentations for UIs.
import { z } from "zod";
import { defineRoute, type RouteSpec } from "../route-table.ts";
import {
  agentToolsResponse,
  presentationsResponse,
  setToolsBody,
  slugParams,
  toolsResponse,
} from "../schemas.ts";

/** `ns__tool` → `ns:tool`; a canonical id is returned unchanged. */
export function canonicalToolId(ref: string): string {
  return ref.includes(":") ? ref : ref.replace("__", ":");
}

export const catalogueRoutes: RouteSpec[] = [
  defineRoute({
    method: "get",
    path: "/api/tools",
    operationId: "listTools",
    summary: "The catalogue: every tool of every installed plugin, harness tools excepted.",
    tag: "catalogue",
    access: "operator",
    responses: { 200: { description: "The catalogue.", schema: toolsResponse } },
    async handler({ host }) {
      return { json: { tools: await host.listTools() } };
    },
  }),
  defineRoute({
    method: "get",
    path: "/api/agents/:slug/tools",
    operationId: "listAgentTools",
    summary: "The catalogue as one agent sees it: enabled or not, missing secrets, served or not.",
    tag: "catalogue",
    access: "agent-self",
    params: slugParams,
    responses: { 200: { description: "The agent's view of every tool.", schema: agentToolsResponse } },
    async handler({ host, params }) {
      return { json: { tools: await host.listAgentTools(params.slug) } };
    },
  }),
  defineRoute({
    method: "patch",
    path: "/api/agents/:slug/tools",
    operationId: "setAgentTools",
    summary: "Enables or disables tools for one agent (a new plugin's tools start disabled).",
    tag: "catalogue",
    access: "operator",
    params: slugParams,
    body: setToolsBody,
    responses: { 200: { description: "The agent's view after the change.", schema: agentToolsResponse } },
    async handler({ host, params, body }) {
      const changes: Record<string, boolean> = {};
      for (const [ref, enabled] of Object.entries(body.enabled)) changes[canonicalToolId(ref)] = enabled;
      return { json: { tools: await host.setToolsEnabled(params.slug, changes) } };
    },
  }),
  defineRoute({
    method: "get",
    path: "/api/presentations",
    operationId: "getToolPresentations",
    summary: "Presentation metadata (label, icon, tone, group) of every tool that declares one, by tool id.",
    tag: "catalogue",
    access: "operator",
    query: z.strictObject({}),
    responses: { 200: { description: "Presentations by tool id.", schema: presentationsResponse } },
    async handler({ host }) {
      return { json: { presentations: await host.getToolPresentations() } };
    },
  }),
];
