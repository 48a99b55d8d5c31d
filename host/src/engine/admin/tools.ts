// The host's catalogue and enablement operations: the catalogue's tools, one agent's view of
// them, enabling and disabling, and the tools' presentations.
// Invariants: every read picks up another replica's catalogue change first (`fresh`); an
// enablement change is audited (tools.set_enabled) and announced (reason "enablement").
import type { Presentation } from "@airlock/sdk/manifest";
import type { AirlockHost } from "../../contracts/host.ts";
import { audited } from "../catalogue/admin-audit.ts";
import { listAgentTools, setToolsEnabled, toCatalogueTool } from "../catalogue/agent-tools.ts";
import type { AdminContext } from "./context.ts";

export type ToolOps = Pick<
  AirlockHost,
  "listTools" | "listAgentTools" | "setToolsEnabled" | "getToolPresentations"
>;

export function createToolOps(ctx: AdminContext): ToolOps {
  const { store, catalogue, admin, announce, fresh } = ctx;
  return {
    async listTools() {
      await fresh();
      return catalogue.tools().map((entry) => toCatalogueTool(entry));
    },
    async listAgentTools(agent) {
      await fresh();
      return listAgentTools(store, catalogue, agent);
    },
    async setToolsEnabled(agent, changes) {
      await fresh();
      const view = await audited(
        admin,
        "tools.set_enabled",
        { agent, details: { changes: { ...changes } } },
        () => setToolsEnabled(store, catalogue, agent, changes),
      );
      announce(agent, "enablement");
      return view;
    },
    async getToolPresentations() {
      await fresh();
      const all = [...catalogue.tools(), ...catalogue.harnessGroups().flatMap((g) => catalogue.harness(g))];
      const out: Record<string, Presentation> = {};
      for (const entry of all) if (entry.tool.presentation) out[entry.id] = { ...entry.tool.presentation };
      return out;
    },
  };
}
