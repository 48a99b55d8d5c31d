// The host's run operations: start a run, the one-shot callTool, and the before/after hooks.
// Invariants: no run starts on a closed host (AIRLOCK_HOST_CLOSED) nor before another replica's
// catalogue change is picked up; a run is traced, then given the skill tools, then code mode
// (each a no-op when it does not apply); callTool's run options never leak into the call's.
import type { AirlockHost, RunOptions } from "../../contracts/host.ts";
import type { AuditInput, Store } from "../../state/store/types.ts";
import type { Catalogue } from "../catalogue/catalogue.ts";
import type { CodeMode } from "../code-mode/index.ts";
import { tracedRun } from "../observability/tracing.ts";
import type { PipelineDeps } from "../pipeline/deps.ts";
import type { EventBus } from "../pipeline/events.ts";
import type { HookRegistry } from "../pipeline/hooks.ts";
import { startRun } from "../pipeline/run.ts";
import { withSkillTools } from "../skills/skill-tools.ts";

export type RunOps = Pick<AirlockHost, "startRun" | "callTool" | "beforeToolCall" | "afterToolCall">;

export interface RunParts {
  deps: PipelineDeps;
  store: Store;
  catalogue: Catalogue;
  events: EventBus;
  hooks: HookRegistry;
  codeMode: Pick<CodeMode, "wrap">;
  audit(entry: AuditInput): Promise<void>;
  /** This replica's id (the run's span names it). */
  replica: string;
  /** Throws AIRLOCK_HOST_CLOSED once the host is closing. */
  assertOpen(): void;
  fresh(): Promise<void>;
}

export function createRunOps(parts: RunParts): RunOps {
  const { deps, store, catalogue, events, audit, codeMode, assertOpen, fresh, hooks } = parts;
  const membership = { replica: parts.replica };
  // Moved as one unit from host-api.ts (assembleHost), logic unchanged.
  const begin = async (run: RunOptions) => {
    assertOpen();
    await fresh();
    const traced = tracedRun(await startRun(deps, run), membership.replica);
    return codeMode.wrap(await withSkillTools({ store, catalogue, events, audit }, traced, run));
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
  return {
    startRun: begin,
    callTool,
    beforeToolCall: (hook) => hooks.addBefore(hook),
    afterToolCall: (hook) => hooks.addAfter(hook),
  };
}
