// The host's run operations: start a run, the one-shot callTool, and the before/after hooks.
// Invariants: no run starts on a closed host (AIRLOCK_HOST_CLOSED) nor before another replica's
// catalogue change is picked up; a run is traced, then given the skill tools, then code mode
// (each a no-op when it does not apply); callTool's run options never leak into the call's.
import type { AirlockHost, ModelTool, RunOptions } from "../../contracts/host.ts";
import type { Store } from "../../state/store/types.ts";
import type { Catalogue } from "../catalogue/catalogue.ts";
import type { CodeMode } from "../code-mode/index.ts";
import type { PipelineDeps } from "../pipeline/deps.ts";
import type { HookRegistry } from "../pipeline/hooks.ts";
import { pluginKey } from "../pipeline/plugin-loader.ts";
import { startRun } from "../pipeline/run.ts";
import { skillHostTools } from "../skills/skill-tools.ts";

export type RunOps = Pick<
  AirlockHost,
  "startRun" | "expectCall" | "callTool" | "beforeToolCall" | "afterToolCall"
>;

export interface RunParts {
  deps: PipelineDeps;
  store: Store;
  catalogue: Catalogue;
  hooks: HookRegistry;
  codeMode: Pick<CodeMode, "hostTools">;
  /** This replica's id (the run's span names it). */
  replica: string;
  /** Throws AIRLOCK_HOST_CLOSED once the host is closing. */
  assertOpen(): void;
  fresh(): Promise<void>;
}

export function createRunOps(parts: RunParts): RunOps {
  const { deps, store, catalogue, codeMode, assertOpen, fresh, hooks, replica } = parts;
  // The host tools a run lists, through the same stages as every tool: the skills' (airlock:skills,
  // airlock:skill) and code mode's (search_tools, run_code, when the agent has code mode on).
  const hostTools = async (agent: string, options: RunOptions, served: readonly ModelTool[]) => [
    ...(await skillHostTools({ store, catalogue }, agent, options)),
    ...(await codeMode.hostTools(agent, served)),
  ];
  const begin = async (run: RunOptions) => {
    assertOpen();
    await fresh();
    return startRun(deps, run, { replica, hostTools });
  };
  const callTool: AirlockHost["callTool"] = async (agent, toolName, input, callOptions) => {
    const {
      tools,
      groups,
      harness,
      autoApprove,
      conversationId,
      agent: _ignored,
      ...call
    } = callOptions ?? ({ agent } as const);
    const run = await begin({
      agent,
      ...(tools === undefined ? {} : { tools }),
      ...(groups === undefined ? {} : { groups }),
      ...(harness === undefined ? {} : { harness }),
      ...(autoApprove === undefined ? {} : { autoApprove }),
      ...(conversationId === undefined ? {} : { conversationId }),
    });
    return run.call(toolName, input, call);
  };
  const expectCall: AirlockHost["expectCall"] = (agent, toolId, conversationId) => {
    if (deps.sandbox.expect === undefined) return; // the early wake is off (wakeSpinMs 0)
    const entry = catalogue.get(toolId);
    if (entry === undefined || entry.executor !== "sandbox") return;
    deps.sandbox.expect?.(pluginKey(entry.plugin), agent, conversationId);
  };
  return {
    startRun: begin,
    expectCall,
    callTool,
    beforeToolCall: (hook) => hooks.addBefore(hook),
    afterToolCall: (hook) => hooks.addAfter(hook),
  };
}
