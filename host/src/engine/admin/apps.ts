// The host's plugin UI operations (MCP Apps): the UIs an agent's enabled tools render in, and
// one UI's HTML (engine/apps/ui-resources.ts).
// Invariants: the agent must exist (AIRLOCK_AGENT_NOT_FOUND); every read picks up another
// replica's catalogue change first; a refused read (AIRLOCK_UI_UNKNOWN, AIRLOCK_UI_INTEGRITY) is
// audited as ui.read with the URI asked for and the code; a served read is not (a client reads
// each UI whenever it lists the agent's tools).
import type { AirlockHost } from "../../contracts/host.ts";
import type { InstalledPluginRecord } from "../../state/store/types.ts";
import { listUiResources, readUiResource } from "../apps/ui-resources.ts";
import { requireAgent } from "../catalogue/agent-tools.ts";
import type { AdminContext } from "./context.ts";

export type UiOps = Pick<AirlockHost, "listUiResources" | "readUiResource">;

export function createUiOps(
  ctx: AdminContext,
  locate: (record: InstalledPluginRecord) => Promise<string>,
): UiOps {
  const { store, catalogue, admin, fresh } = ctx;
  const source = { store, catalogue, locate };
  return {
    async listUiResources(agent) {
      await fresh();
      await requireAgent(store, agent);
      return listUiResources(source, agent);
    },
    async readUiResource(agent, uri) {
      await fresh();
      await requireAgent(store, agent);
      try {
        return await readUiResource(source, agent, uri);
      } catch (error) {
        const plugin = /^ui:\/\/([a-z][a-z0-9-]{1,31})\//.exec(String(uri))?.[1] ?? null;
        await admin("ui.read", { agent, plugin, details: { uri: String(uri).slice(0, 200) } }, error);
        throw error;
      }
    },
  };
}
