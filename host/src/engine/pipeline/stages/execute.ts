// Stage "execute": the call runs in the executor its catalogue entry names (executors/:
// `sandbox` for a plugin's isolate, `remote` for a remote MCP server), or, for a tool the host
// answers itself (skills, code mode), the `host` executor; a plugin tool runs under the plugin's
// limits and the caller's signal, its progress reaching the caller and the bus (tool.progress).
// Invariants: the executor's answer is normalised into a ToolResult (call.result) for the
// output stage; a Stop from the executor ends the call with that code.
import { normalizeToolResult } from "@airlock/sdk";
import { executeHost } from "../executors/host.ts";
import { EXECUTORS } from "../executors/index.ts";
import { type CallStage, reached } from "./types.ts";

export const executeStage: CallStage = {
  name: "execute",
  async enter(call) {
    const { deps, base } = call;
    if (call.host !== undefined) {
      const answered = await executeHost(call, call.host);
      if ("code" in answered) return answered;
      call.result = normalizeToolResult(answered.result);
      return undefined;
    }
    const entry = reached(call.current, "the catalogue entry");
    const executed = await EXECUTORS[entry.executor](deps, {
      callId: call.callId,
      run: call.run,
      entry,
      input: call.input,
      limits: reached(call.limits, "the limits"),
      agentLevel: reached(call.state, "the agent's state").agent.knowledgeLevel,
      options: call.options,
      emitProgress: (notification) => deps.events.emit("tool.progress", { ...base, notification }),
    });
    if ("code" in executed) return executed;
    call.result = normalizeToolResult(executed.result);
    return undefined;
  },
};
