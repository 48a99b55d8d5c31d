// The host's code-mode operations: an agent's code-mode settings and its saved run_code snippets.
// Invariants: the agent must exist (AIRLOCK_AGENT_NOT_FOUND); a change is validated whole, audited
// (agent.code_mode, snippet.*) and announced (reason "enablement": what the agent is served moves).
import type { AirlockHost } from "../../contracts/host.ts";
import { audited } from "../catalogue/admin-audit.ts";
import { requireAgent } from "../catalogue/agent-tools.ts";
import type { CodeMode } from "../code-mode/index.ts";
import { createSnippetsAdmin } from "../code-mode/snippets-admin.ts";
import type { AdminContext } from "./context.ts";

export type CodeModeOps = Pick<AirlockHost, "snippets" | "getCodeMode" | "setCodeMode">;

export function createCodeModeOps(
  ctx: Pick<AdminContext, "store" | "admin" | "announce">,
  codeMode: Pick<CodeMode, "settings" | "configure">,
): CodeModeOps {
  const { store, admin, announce } = ctx;
  return {
    snippets: createSnippetsAdmin({
      store,
      admin,
      settings: (agent) => codeMode.settings(agent),
      announce: (agent) => announce(agent, "enablement"),
    }),
    async getCodeMode(agent) {
      await requireAgent(store, agent);
      return codeMode.settings(agent);
    },
    async setCodeMode(agent, change) {
      await requireAgent(store, agent);
      const settings = await audited(
        admin,
        "agent.code_mode",
        { agent, details: { change: { ...change } } },
        () => codeMode.configure(agent, change),
      );
      announce(agent, "enablement");
      return settings;
    },
  };
}
