// The host's agent operations: create, read, list, knowledge level, and deletion (with what it
// removes shown first).
// Invariants: a slug is `[a-z0-9][a-z0-9-]{0,63}` and a level one of none/read/write/manage,
// else AIRLOCK_AGENT_INVALID_SLUG / _LEVEL before anything is written; every change is audited
// (agent.create, agent.knowledge_level, agent.delete); a level change is announced to the other
// replicas; a deletion raises `tools.changed` for the agent (reason "enablement": it is served
// nothing any more) here and on every replica.
import type { AgentRemoval } from "../../contracts/admin-ops.ts";
import type { AirlockHost } from "../../contracts/host.ts";
import type { AgentKnowledgeLevel } from "../../state/store/types.ts";
import { audited } from "../catalogue/admin-audit.ts";
import { catalogueError, requireAgent } from "../catalogue/agent-tools.ts";
import type { AdminContext } from "./context.ts";
import { tokenView } from "./tokens.ts";

const AGENT_SLUG = /^[a-z0-9][a-z0-9-]{0,63}$/;

/** What is wrong with a slug, what is allowed, and the nearest valid slug when there is one. */
function invalidSlugMessage(slug: unknown): string {
  const rule = "a slug is 1–64 lowercase letters, digits and hyphens, starting with a letter or digit";
  const fixed =
    typeof slug === "string"
      ? slug
          .toLowerCase()
          .replace(/[^a-z0-9-]+/g, "-")
          .replace(/^-+/, "")
          .slice(0, 64)
      : "";
  return `invalid agent slug ${JSON.stringify(slug)} — ${rule}${AGENT_SLUG.test(fixed) ? ` (e.g. "${fixed}")` : ""}`;
}
const LEVELS: ReadonlySet<string> = new Set(["none", "read", "write", "manage"]);

export type AgentOps = Pick<
  AirlockHost,
  "createAgent" | "getAgent" | "listAgents" | "setKnowledgeLevel" | "previewAgentRemoval" | "deleteAgent"
>;

export function createAgentOps(
  ctx: Pick<AdminContext, "store" | "admin" | "announce">,
  parts: {
    /** Tells the other replicas an agent's level changed (their agent-state caches re-read it). */
    announceLevel: (agent: string) => void;
    /** The agent's pending approvals, on every replica. */
    pendingApprovals: (agent: string) => Promise<readonly unknown[]>;
  },
): AgentOps {
  const { store, admin, announce } = ctx;
  const removalOf = async (agent: string): Promise<AgentRemoval> => {
    const tokens = (await store.listTokens()).filter((t) => t.agent === agent).map(tokenView);
    const secrets = (await store.listSecrets(agent)).map((s) => s.key).sort();
    return {
      agent,
      tokens,
      enabledTools: (await store.listEnabledTools(agent)).sort(),
      secrets,
      knowledgeDocuments: await store.countKnowledgeDocs(agent),
      pendingApprovals: (await parts.pendingApprovals(agent)).length,
    };
  };
  return {
    previewAgentRemoval: (slug) => removalOf(slug),
    async deleteAgent(slug) {
      await requireAgent(store, slug);
      const removed = await removalOf(slug);
      await audited(
        admin,
        "agent.delete",
        {
          agent: slug,
          details: {
            tokens: removed.tokens.length,
            enabledTools: removed.enabledTools.length,
            secrets: removed.secrets,
            knowledgeDocuments: removed.knowledgeDocuments,
          },
        },
        () => store.deleteAgent(slug),
      );
      announce(slug, "enablement");
      return removed;
    },
    async createAgent(slug) {
      if (typeof slug !== "string" || !AGENT_SLUG.test(slug)) {
        throw catalogueError("AIRLOCK_AGENT_INVALID_SLUG", invalidSlugMessage(slug));
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
      parts.announceLevel(slug);
    },
  };
}
