// Runs: a run takes a catalogue snapshot when it starts — the agent's enabled and served tools,
// restricted to the named tools/groups when the run names any, plus the tools of the harness
// groups it asks for — and only those tools can be called in it. A tool registered, enabled or
// installed later is refused as AIRLOCK_TOOL_NOT_EXPOSED (the up-front registration rule).
// Invariants: the snapshot never changes during a run; ModelTool carries no presentation.
import { randomUUID } from "node:crypto";
import { AirlockError, wireName } from "@airlock/sdk";
import type { CallOptions, ModelTool, Run, RunOptions, ToolCallOutcome } from "../../contracts/host.ts";
import { missingSecrets } from "../catalogue/agent-tools.ts";
import { type CatalogueEntry, canonicalToolId } from "../catalogue/catalogue.ts";
import { askableSecrets } from "../people/pipeline-steps.ts";
import type { HostTool, RunContext } from "./call-types.ts";
import type { PipelineDeps } from "./deps.ts";
import { PIPELINE_ERRORS } from "./errors.ts";
import { invokeTool } from "./invoke.ts";

export function toModelTool(entry: CatalogueEntry): ModelTool {
  const tool: ModelTool = {
    id: entry.id,
    wireName: wireName(entry.namespace, entry.tool.name),
    description: entry.tool.description,
    inputSchema: structuredClone(entry.tool.inputSchema),
    annotations: { ...entry.tool.annotations },
  };
  if (entry.tool.outputSchema !== undefined) tool.outputSchema = structuredClone(entry.tool.outputSchema);
  if (entry.tool.longRunning === true) tool.longRunning = true;
  return tool;
}

function restrictionMatches(
  entry: CatalogueEntry,
  ids: ReadonlySet<string>,
  groups: ReadonlySet<string>,
): boolean {
  if (ids.has(entry.id)) return true;
  if (groups.has(entry.tool.category)) return true;
  const group = entry.tool.presentation?.group;
  return group !== undefined && groups.has(group);
}

/** Builds the snapshot for a run. Throws for an unknown agent or an unknown harness group. */
export async function takeSnapshot(
  deps: PipelineDeps,
  options: RunOptions,
): Promise<Map<string, CatalogueEntry>> {
  const state = await deps.agentStates.load(options.agent).catch((error: unknown) => {
    throw new AirlockError("AIRLOCK_RUN_AGENT_NOT_FOUND", `no agent "${String(options.agent)}" to run`, {
      status: PIPELINE_ERRORS.AIRLOCK_RUN_AGENT_NOT_FOUND.status,
      cause: error,
    });
  });
  const restricted = options.tools !== undefined || options.groups !== undefined;
  const ids = new Set((options.tools ?? []).map((t) => canonicalToolId(t) ?? t));
  const groups = new Set(options.groups ?? []);
  const snapshot = new Map<string, CatalogueEntry>();
  // A tool missing only secrets the person may enter on the host's page is served (people/).
  let askable: ReadonlySet<string> | undefined;
  for (const entry of deps.catalogue.tools()) {
    if (!state.enabled.has(entry.id)) continue;
    const missing = missingSecrets(entry, state.secretKeys);
    if (missing.length > 0) {
      askable ??= await askableSecrets(deps.store, options.agent);
      if (!missing.every((key) => askable?.has(key) === true)) continue;
    }
    if (restricted && !restrictionMatches(entry, ids, groups)) continue;
    snapshot.set(entry.id, entry);
  }
  // Remote tools whose server changed or dropped their pinned definition are not registered.
  for (const id of (await deps.remote?.screen(options.agent, [...snapshot.values()])) ?? [])
    snapshot.delete(id);
  for (const group of options.harness ?? []) {
    const members = deps.catalogue.harness(group);
    if (members.length === 0) {
      throw new AirlockError(
        "AIRLOCK_RUN_UNKNOWN_HARNESS_GROUP",
        `no active plugin provides harness group "${group}" (known: ${deps.catalogue.harnessGroups().join(", ") || "none"})`,
        { status: PIPELINE_ERRORS.AIRLOCK_RUN_UNKNOWN_HARNESS_GROUP.status },
      );
    }
    for (const entry of members) {
      if (missingSecrets(entry, state.secretKeys).length === 0) snapshot.set(entry.id, entry);
    }
  }
  return snapshot;
}

export interface RunPlace {
  /** The cluster member the host is (its calls' spans name it). */
  replica: string;
  /** The tools the host answers itself in this run (executors/host.ts), for the agent. */
  hostTools?(agent: string, options: RunOptions): Promise<readonly HostTool[]>;
}

export async function startRun(deps: PipelineDeps, options: RunOptions, place: RunPlace): Promise<Run> {
  const snapshot = await takeSnapshot(deps, options);
  const hostTools = new Map<string, HostTool>();
  for (const tool of (await place.hostTools?.(options.agent, options)) ?? [])
    hostTools.set(tool.model.id, tool);
  const context: RunContext = {
    id: `run_${randomUUID()}`,
    agent: options.agent,
    conversationId: options.conversationId ?? `conv_${randomUUID()}`,
    autoApprove: options.autoApprove === true,
    replica: place.replica,
    snapshot,
    hostTools,
  };
  const modelTools = [
    ...[...snapshot.values()].map(toModelTool),
    ...[...hostTools.values()].map((t) => t.model),
  ];
  return {
    id: context.id,
    agent: context.agent,
    conversationId: context.conversationId,
    tools: () => modelTools.map((t) => structuredClone(t)),
    call: (toolName: string, input: unknown, callOptions?: CallOptions): Promise<ToolCallOutcome> =>
      invokeTool(deps, context, toolName, input, callOptions ?? {}),
  };
}
