// Code-mode routes: read and change one agent's code mode (search_tools and run_code on its MCP
// endpoint and its calls route; docs/code-mode.md). Operator only: an agent cannot turn code mode
// on for itself or raise its own limits.
// Invariants: a change is validated whole by the host (AIRLOCK_CODE_SETTINGS_INVALID, 400, and
// nothing stored); the answer is always the settings now in force.
import { z } from "zod";
import { CODE_MODE_LIMIT_RANGES } from "../../../index.ts";
import { defineRoute, type RouteSpec } from "../route-table.ts";
import { slugParams } from "../schemas.ts";

const limitNames = Object.keys(CODE_MODE_LIMIT_RANGES) as Array<keyof typeof CODE_MODE_LIMIT_RANGES>;
const limitShape = (optional: boolean) =>
  z.strictObject(
    Object.fromEntries(
      limitNames.map((name) => {
        const [min, max] = CODE_MODE_LIMIT_RANGES[name];
        const n = z.number().int().min(min).max(max);
        return [name, optional ? n.optional() : n];
      }),
    ),
  );

const settingsResponse = z.object({
  enabled: z.boolean(),
  exclusive: z.boolean(),
  scratch: z.boolean(),
  snippets: z.boolean(),
  limits: limitShape(false),
});
const changeBody = z.strictObject({
  enabled: z.boolean().optional(),
  exclusive: z.boolean().optional(),
  scratch: z.boolean().optional(),
  snippets: z.boolean().optional(),
  limits: limitShape(true).optional(),
});

export const codeModeRoutes: RouteSpec[] = [
  defineRoute({
    method: "get",
    path: "/api/agents/:slug/code-mode",
    operationId: "getCodeMode",
    summary: "The agent's code mode: whether search_tools and run_code are served, and run_code's limits.",
    tag: "instances",
    access: "operator",
    params: slugParams,
    responses: { 200: { description: "The settings in force.", schema: settingsResponse } },
    async handler({ host, params }) {
      return { json: await host.getCodeMode(params.slug) };
    },
  }),
  defineRoute({
    method: "put",
    path: "/api/agents/:slug/code-mode",
    operationId: "setCodeMode",
    summary:
      "Changes the agent's code mode: `enabled`, `exclusive` (list only search_tools and run_code), `scratch` (run_code's per-conversation scratch store), `snippets` (run_code may save named snippets), `limits` (fields not named are kept).",
    tag: "instances",
    access: "operator",
    params: slugParams,
    body: changeBody,
    responses: { 200: { description: "The settings after the change.", schema: settingsResponse } },
    async handler({ host, params, body }) {
      return { json: await host.setCodeMode(params.slug, body as Parameters<typeof host.setCodeMode>[1]) };
    },
  }),
];
