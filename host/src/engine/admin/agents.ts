// The host's agent operations: create, read, list, knowledge level.
// Invariants: a slug is `[a-z0-9][a-z0-9-]{0,63}` and a level one of none/read/write/manage,
// else AIRLOCK_AGENT_INVALID_SLUG / _LEVEL before anything is written; every change is audited
// (agent.create, agent.knowledge_level); a level change is announced to the other replicas.
import type { AirlockHost } from "../../contracts/host.ts";
import type { AgentKnowledgeLevel } from "../../state/store/types.ts";
import { audited } from "../catalogue/admin-audit.ts";
import { catalogueError, requireAgent } from "../catalogue/agent-tools.ts";
import type { AdminContext } from "./context.ts";

const AGENT_SLUG = /^[a-z0-9][a-z0-9-]{0,63}$/;
const LEVELS: ReadonlySet<string> = new Set(["none", "read", "write", "manage"]);

export type AgentOps = Pick<AirlockHost, "createAgent" | "getAgent" | "listAgents" | "setKnowledgeLevel">;

export function createAgentOps(
  ctx: Pick<AdminContext, "store" | "admin">,
  /** Tells the other replicas an agent's level changed (their agent-state caches re-read it). */
  announceLevel: (agent: string) => void,
): AgentOps {
  const { store, admin } = ctx;
  return {
    async createAgent(slug) {
      if (typeof slug !== "string" || !AGENT_SLUG.test(slug)) {
        throw catalogueError("AIRLOCK_AGENT_INVALID_SLUG", `invalid agent slug ${JSON.stringify(slug)}`);
      }
      return audited(admin, "agent.create", { agent: slug }, () => store.ensureAgent(slug));
    },
    getAgent: (slug) => store.getAgent(slug),
    listAgents: () => store.listAgents(),
    async setKnowledgeLevel(slug, level: AgentKnowledgeLevel) {
      if (!LEVELS.has(level)) {
        throw catalogueError(
          "AIRLOCK_AGENT_INVALID_LEVEL",
          `unknown knowledge level ${JSON.stringify(level)}`,
        );
      }
      await requireAgent(store, slug);
      await audited(admin, "agent.knowledge_level", { agent: slug, details: { level } }, () =>
        store.setKnowledgeLevel(slug, level),
      );
      announceLevel(slug);
    },
  };
}
