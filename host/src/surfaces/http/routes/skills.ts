// Skill routes: one agent's skills (one line each) and the body of one, for an agent that reads
// them over HTTP rather than as MCP prompts or the airlock:skill tool, and the operator's
// per-agent enablement.
// Invariants: an agent token sees only the skills its agent has enabled (a skill it lacks is not
// listed, and reading it is AIRLOCK_SKILL_UNKNOWN, 404, exactly as for a skill that does not
// exist); an operator sees every skill with its `enabled` flag; only an operator changes
// enablement (audited by the host as skills.set_enabled).
import { z } from "zod";
import { defineRoute, type RouteSpec } from "../route-table.ts";
import { slug, slugParams } from "../schemas.ts";

const skillId = z.string().min(1).max(200);
const skillView = z.object({
  id: z.string(),
  namespace: z.string(),
  name: z.string(),
  description: z.string(),
  enabled: z.boolean(),
});
const skillsResponse = z.object({ skills: z.array(skillView) });
const skillResponse = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  body: z.string(),
  references: z.array(z.object({ path: z.string(), content: z.string() })),
});
const setSkillsBody = z.strictObject({
  enabled: z
    .record(skillId, z.boolean())
    .refine((r) => Object.keys(r).length <= 500, "at most 500 skills at once"),
});

export const skillRoutes: RouteSpec[] = [
  defineRoute({
    method: "get",
    path: "/api/agents/:slug/skills",
    operationId: "listAgentSkills",
    summary:
      "The agent's skills, one line each: an agent token sees the ones enabled for it, an operator every skill with `enabled`.",
    tag: "catalogue",
    access: "agent-self",
    params: slugParams,
    responses: { 200: { description: "The skills.", schema: skillsResponse } },
    async handler({ host, params, token }) {
      const skills = await host.listSkills(params.slug);
      return { json: { skills: token?.role === "agent" ? skills.filter((s) => s.enabled) : skills } };
    },
  }),
  defineRoute({
    method: "get",
    path: "/api/agents/:slug/skills/:id",
    operationId: "readAgentSkill",
    summary:
      "The body and reference files of a skill the agent has enabled (AIRLOCK_SKILL_UNKNOWN otherwise).",
    tag: "catalogue",
    access: "agent-self",
    params: z.strictObject({ slug, id: skillId }),
    responses: {
      200: { description: "The skill.", schema: skillResponse },
      404: { description: "No such skill enabled for this agent." },
    },
    async handler({ host, params }) {
      return { json: await host.readSkill(params.slug, params.id) };
    },
  }),
  defineRoute({
    method: "patch",
    path: "/api/agents/:slug/skills",
    operationId: "setAgentSkills",
    summary: "Enables or disables skills (`<ns>:skill:<id>`) for one agent; a skill starts disabled.",
    tag: "catalogue",
    access: "operator",
    params: slugParams,
    body: setSkillsBody,
    responses: { 200: { description: "Every skill after the change.", schema: skillsResponse } },
    async handler({ host, params, body }) {
      return { json: { skills: await host.setSkillsEnabled(params.slug, body.enabled) } };
    },
  }),
];
