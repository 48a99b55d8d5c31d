// Saved snippets of code mode (docs/code-mode.md): an operator lists an agent's snippets, reads
// one with its code, saves one, promotes it into a skill of the agent (or withdraws it), deletes
// it. Operator only: an agent never promotes its own code into a skill.
// Invariants: every answer comes from host.snippets (validation and audit there: bad names are
// AIRLOCK_CODE_SNIPPET_INVALID, unknown ones AIRLOCK_CODE_SNIPPET_UNKNOWN, 404).
import { z } from "zod";
import { defineRoute, type RouteSpec } from "../route-table.ts";
import { slug } from "../schemas.ts";

const name = z.string().regex(/^[a-z][a-z0-9-]{0,47}$/, "a snippet name: a-z, then a-z, 0-9 and -, up to 48");
const params = z.strictObject({ slug, name });
const summary = z.object({
  name: z.string(),
  description: z.string(),
  savedBy: z.enum(["run_code", "operator"]),
  callId: z.string().nullable(),
  savedAt: z.string(),
  promoted: z.boolean(),
});
const snippet = summary.extend({ code: z.string() });

export const snippetRoutes: RouteSpec[] = [
  defineRoute({
    method: "get",
    path: "/api/agents/:slug/snippets",
    operationId: "listSnippets",
    summary: "The agent's saved run_code snippets (without their code), and which are promoted into skills.",
    tag: "instances",
    access: "operator",
    params: z.strictObject({ slug }),
    responses: { 200: { description: "The snippets.", schema: z.object({ snippets: z.array(summary) }) } },
    async handler({ host, params }) {
      return { json: { snippets: await host.snippets.list(params.slug) } };
    },
  }),
  defineRoute({
    method: "get",
    path: "/api/agents/:slug/snippets/:name",
    operationId: "getSnippet",
    summary: "One snippet with its code, for review.",
    tag: "instances",
    access: "operator",
    params,
    responses: { 200: { description: "The snippet.", schema: snippet } },
    async handler({ host, params }) {
      return { json: await host.snippets.get(params.slug, params.name) };
    },
  }),
  defineRoute({
    method: "put",
    path: "/api/agents/:slug/snippets/:name",
    operationId: "saveSnippet",
    summary: "Saves (or replaces) a snippet as the operator; a promoted one stays promoted.",
    tag: "instances",
    access: "operator",
    params,
    body: z.strictObject({ code: z.string().min(1), description: z.string().max(500).optional() }),
    responses: { 200: { description: "The snippet as saved.", schema: snippet } },
    async handler({ host, params, body }) {
      const b = body as { code: string; description?: string };
      return { json: await host.snippets.save(params.slug, params.name, b) };
    },
  }),
  defineRoute({
    method: "post",
    path: "/api/agents/:slug/snippets/:name/promote",
    operationId: "promoteSnippet",
    summary:
      "Promotes the snippet into the agent's skill `airlock:skill:snippet-<name>` (`promoted: false` withdraws it).",
    tag: "instances",
    access: "operator",
    params,
    body: z.strictObject({ promoted: z.boolean().default(true) }),
    responses: { 200: { description: "The snippet after the change.", schema: snippet } },
    async handler({ host, params, body }) {
      return {
        json: await host.snippets.promote(params.slug, params.name, (body as { promoted: boolean }).promoted),
      };
    },
  }),
  defineRoute({
    method: "delete",
    path: "/api/agents/:slug/snippets/:name",
    operationId: "deleteSnippet",
    summary: "Deletes the snippet (and the skill it was promoted into).",
    tag: "instances",
    access: "operator",
    params,
    responses: {
      200: { description: "Whether one was deleted.", schema: z.object({ deleted: z.boolean() }) },
    },
    async handler({ host, params }) {
      return { json: { deleted: await host.snippets.delete(params.slug, params.name) } };
    },
  }),
];
