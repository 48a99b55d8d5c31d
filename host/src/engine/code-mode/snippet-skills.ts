// Promoted snippets (snippets.ts) as skills of their agent: host.listSkills gains one line per
// promoted snippet of the agent (`airlock:skill:snippet-<name>`, namespace "airlock", enabled —
// the promotion is the operator's enabling), and host.readSkill answers its body. Every surface
// that serves skills goes through those two calls (the MCP prompts, the console, the API).
// Invariants: only the agent's own promoted snippets are listed or read; a withdrawn or deleted
// one is AIRLOCK_SKILL_UNKNOWN like any skill the agent does not have; plugin skills pass through.

import type { Store } from "../../state/store/types.ts";
import { skillError } from "../skills/errors.ts";
import type { SkillDocument, SkillView } from "../skills/skills.ts";
import { getSnippet, SNIPPET_SKILL_PREFIX, snippetSkill, snippetSkills } from "./snippets.ts";

export function withSnippetSkills(store: Store) {
  return {
    async list(agent: string, pluginSkills: SkillView[]): Promise<SkillView[]> {
      const own = (await snippetSkills(store, agent)).map(
        (s): SkillView => ({
          id: s.id,
          namespace: "airlock",
          name: s.name,
          description: s.description,
          enabled: true,
        }),
      );
      return [...pluginSkills, ...own];
    },
    async read(agent: string, id: string, plugin: () => Promise<SkillDocument>): Promise<SkillDocument> {
      if (typeof id !== "string" || !id.startsWith(SNIPPET_SKILL_PREFIX)) return plugin();
      const name = id.slice(SNIPPET_SKILL_PREFIX.length);
      let found = null;
      try {
        found = await getSnippet(store, agent, name);
      } catch {
        found = null; // not a snippet name: no such skill
      }
      if (found === null || !found.promoted)
        throw skillError("AIRLOCK_SKILL_UNKNOWN", `no skill "${id.slice(0, 200)}" for this agent`);
      const skill = snippetSkill(found);
      return {
        id: skill.id,
        name: skill.name,
        description: skill.description,
        body: skill.body,
        references: [],
      };
    },
  };
}
