// The host's skill operations: an agent's skills (plugins' and its promoted snippets'), enabling
// them, and reading one's body.
// Invariants: the agent must exist (AIRLOCK_AGENT_NOT_FOUND); every read picks up another
// replica's catalogue change first; an enablement change is audited (skills.set_enabled) and
// announced (reason "enablement").
import type { AirlockHost } from "../../contracts/host.ts";
import { audited } from "../catalogue/admin-audit.ts";
import { requireAgent } from "../catalogue/agent-tools.ts";
import { withSnippetSkills } from "../code-mode/snippet-skills.ts";
import { listSkills, readSkill, setSkillsEnabled } from "../skills/skills.ts";
import type { AdminContext } from "./context.ts";

export type SkillOps = Pick<AirlockHost, "listSkills" | "setSkillsEnabled" | "readSkill">;

export function createSkillOps(ctx: AdminContext): SkillOps {
  const { store, catalogue, admin, announce, fresh } = ctx;
  const snippetSkillsOf = withSnippetSkills(store);
  return {
    async listSkills(agent) {
      await fresh();
      await requireAgent(store, agent);
      return snippetSkillsOf.list(agent, await listSkills(store, catalogue, agent));
    },
    async setSkillsEnabled(agent, changes) {
      await fresh();
      await requireAgent(store, agent);
      const view = await audited(
        admin,
        "skills.set_enabled",
        { agent, details: { changes: { ...changes } } },
        () => setSkillsEnabled(store, catalogue, agent, changes),
      );
      announce(agent, "enablement");
      return view;
    },
    async readSkill(agent, id) {
      await fresh();
      await requireAgent(store, agent);
      return snippetSkillsOf.read(agent, id, () => readSkill(store, catalogue, agent, id));
    },
  };
}
