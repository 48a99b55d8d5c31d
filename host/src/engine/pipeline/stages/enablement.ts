// Stage "enablement": the tool is still there and still enabled for the agent. A tool
// uninstalled since the run started answers AIRLOCK_TOOL_UNAVAILABLE; a plugin tool an operator
// disabled for the agent answers AIRLOCK_TOOL_DISABLED (harness tools are not enabled per
// agent: the run asked for their group).
// Invariants: reads the live catalogue and the agent's state (possibly cached for a short
// while: pipeline/agent-states.ts) and leaves both on the call for the later stages.
import { type CallStage, reached, stop } from "./types.ts";

export const enablementStage: CallStage = {
  name: "enablement",
  async enter(call) {
    if (call.host !== undefined) return undefined; // a host tool skips this stage (docs/pipeline.md)
    const id = reached(call.id, "the tool id");
    const current = call.deps.catalogue.get(id);
    if (current === undefined) {
      return stop(
        "AIRLOCK_TOOL_UNAVAILABLE",
        `Tool ${call.toolName} was uninstalled after this run started.`,
      );
    }
    const state = await call.deps.agentStates.get(call.run.agent);
    if (current.tool.harness === null && !state.enabled.has(id)) {
      return stop(
        "AIRLOCK_TOOL_DISABLED",
        `Tool ${call.toolName} was disabled for this agent by an operator.`,
      );
    }
    call.current = current;
    call.state = state;
    return undefined;
  },
};
