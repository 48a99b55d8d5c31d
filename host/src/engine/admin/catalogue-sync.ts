// Keeps this host's view of the catalogue current: reloads it after a lifecycle change, re-reads
// it when another replica announces one, and raises `tools.changed` for every change it sees.
// Invariants: every catalogue problem is reported and audited (`catalogue.problem`); versions no
// longer active lose their remote sessions and sandbox isolates after a reload; a remote change
// invalidates the agent-state cache before it is raised; nothing here throws into a listener.
import { AirlockError } from "@airlock/sdk";
import type { ToolsChangeReason } from "../../contracts/host.ts";
import type { AuditInput } from "../../state/store/types.ts";
import type { Catalogue, CatalogueProblem } from "../catalogue/catalogue.ts";
import type { EventBus } from "../pipeline/events.ts";
import { pluginKey } from "../pipeline/plugin-loader.ts";

export interface CatalogueSyncParts {
  catalogue: Catalogue;
  events: EventBus;
  agentStates: { invalidate(): void };
  audit(entry: AuditInput): Promise<void>;
  report(what: string, error: unknown): void;
  closed(): boolean;
  /** Tells the other replicas (bound late: the cluster is joined after this is built). */
  announceToCluster(agent: string | null, reason: ToolsChangeReason): void;
  /** Closes idle sessions toward remote servers no longer installed (bound late). */
  retainSessions(namespaces: Set<string>): Promise<void>;
  /** Unloads sandbox isolates of plugin versions no longer active (bound late). */
  retainPlugins(keys: Set<string>): Promise<void>;
}

export interface CatalogueSync {
  /** Raises `tools.changed` on this replica only. */
  changed(agent: string | null, reason: ToolsChangeReason): void;
  /** A change made through this host: raised here and announced to the other replicas. */
  announce(agent: string | null, reason: ToolsChangeReason): void;
  /** Another replica announced a change (or the listener reconnected): re-read, then raise it here. */
  remoteChange(agent: string | null, reason: ToolsChangeReason): Promise<void>;
  /** Reloads the catalogue (after a lifecycle change) and announces it. */
  refresh(): Promise<void>;
  /** Another replica (or process) may have changed the active versions: pick that up first. */
  fresh(): Promise<void>;
}

export function createCatalogueSync(parts: CatalogueSyncParts): CatalogueSync {
  const { catalogue, events, report } = parts;
  const changed = (agent: string | null, reason: ToolsChangeReason) =>
    events.emit("tools.changed", { agent, reason });
  const announce = (agent: string | null, reason: ToolsChangeReason) => {
    changed(agent, reason);
    parts.announceToCluster(agent, reason);
  };
  /** Reports a reload's problems and unloads plugin versions that are no longer active. */
  async function settle(problems: readonly CatalogueProblem[]): Promise<void> {
    // A lifecycle change may have removed enablement rows through another path (the installer).
    parts.agentStates.invalidate();
    for (const problem of problems) {
      report("catalogue", new AirlockError(problem.code, problem.message));
      await parts.audit({
        agent: null,
        plugin: problem.namespace,
        tool: null,
        conversationId: null,
        kind: "admin",
        action: "catalogue.problem",
        allowed: false,
        success: false,
        error: problem.code,
        durationMs: null,
        details: { message: problem.message },
      });
    }
    // Idle sessions toward remote servers no longer installed are closed (remote/session-pool.ts).
    await parts.retainSessions(new Set(catalogue.plugins().keys()));
    try {
      await parts.retainPlugins(new Set([...catalogue.plugins().values()].map(pluginKey)));
    } catch (error) {
      // An isolate that fails to unload is not worth failing the operation that changed the catalogue.
      report("unloading inactive plugin versions", error);
    }
  }
  return {
    changed,
    announce,
    async remoteChange(agent, reason) {
      parts.agentStates.invalidate();
      try {
        if (reason === "catalogue" && !parts.closed()) {
          const problems = await catalogue.sync();
          if (problems !== null) await settle(problems);
        }
      } catch (error) {
        report("re-reading the catalogue after another replica's change", error);
      }
      changed(agent, reason);
    },
    async refresh() {
      await settle(await catalogue.reload());
      announce(null, "catalogue");
    },
    async fresh() {
      const problems = await catalogue.sync();
      if (problems !== null) {
        await settle(problems);
        changed(null, "catalogue");
      }
    },
  };
}
