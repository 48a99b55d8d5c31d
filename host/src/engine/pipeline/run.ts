// Runs: a run takes a catalogue snapshot when it starts — the agent's enabled and served tools,
// restricted to the named tools/groups when the run names any, plus the tools of the harness
// groups it asks for — and only those tools can be called in it. A tool registered, enabled or
// installed later is refused as AIRLOCK_TOOL_NOT_EXPOSED (the up-front registration rule).
// The tools the host answers itself (skills, code mode: executors/host.ts) are listed after the
// snapshot, or alone when one of them is exclusive (code mode's exclusive mode); they call other
// tools through the run's inner Run, which has the same snapshot and no host tools.
// Invariants: the snapshot never changes during a run; ModelTool carries no presentation.
import { randomUUID } from "node:crypto";
import { AirlockError, uiResourceUri, wireName } from "@airlock/sdk";
import type { CallOptions, ModelTool, Run, RunOptions, ToolCallOutcome } from "../../contracts/host.ts";
import { missingSecrets } from "../catalogue/agent-tools.ts";
import { type CatalogueEntry, canonicalToolId } from "../catalogue/catalogue.ts";
import { servedLabels } from "../catalogue/served-tool.ts";
import { askableSecrets } from "../people/pipeline-steps.ts";
import type { HostTool, RunContext } from "./call-types.ts";
import type { PipelineDeps } from "./deps.ts";
import { PIPELINE_ERRORS } from "./errors.ts";
import { invokeTool } from "./invoke.ts";

/** A snapshot entry as the model sees it; labels derived for the agent's knowledge level (served-tool.ts). */
export function toModelTool(entry: CatalogueEntry, agentLevel: string | null): ModelTool {
  const { annotations, grants } = servedLabels(entry.tool, entry.plugin.manifest, agentLevel);
  const tool: ModelTool = {
    id: entry.id,
    wireName: wireName(entry.namespace, entry.tool.name),
    description: entry.tool.description,
    inputSchema: structuredClone(entry.tool.inputSchema),
    annotations,
  };
  if (grants !== null) tool.grants = grants;
  if (entry.tool.outputSchema !== undefined) tool.outputSchema = structuredClone(entry.tool.outputSchema);
  if (entry.tool.longRunning === true) tool.longRunning = true;
  const { ui, visibility } = entry.tool;
  if (ui !== undefined || visibility !== undefined) {
    tool.ui = {};
    if (ui !== undefined) tool.ui.resourceUri = uiResourceUri(entry.namespace, ui);
    if (visibility !== undefined) tool.ui.visibility = [...visibility];
  }
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
): Promise<{ snapshot: Map<string, CatalogueEntry>; knowledgeLevel: string | null }> {
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
  return { snapshot, knowledgeLevel: state.agent.knowledgeLevel };
}

export interface RunPlace {
  /** The cluster member the host is (its calls' spans name it). */
  replica: string;
  /**
   * The tools the host answers itself in this run (executors/host.ts), for the agent; `served`
   * is the run's snapshot as the model sees it (code mode describes and calls those).
   */
  hostTools?(agent: string, options: RunOptions, served: readonly ModelTool[]): Promise<readonly HostTool[]>;
}

/** What a run lists: its snapshot and its host tools, or only the exclusive host tools if any. */
function listing(served: readonly ModelTool[], hostTools: readonly HostTool[]): ModelTool[] {
  const alone = hostTools.filter((t) => t.exclusive === true);
  if (alone.length > 0) return alone.map((t) => t.model);
  return [...served, ...hostTools.map((t) => t.model)];
}

export async function startRun(deps: PipelineDeps, options: RunOptions, place: RunPlace): Promise<Run> {
  const { snapshot, knowledgeLevel } = await takeSnapshot(deps, options);
  const served = [...snapshot.values()].map((entry) => toModelTool(entry, knowledgeLevel));
  const ownTools = (await place.hostTools?.(options.agent, options, served)) ?? [];
  const hostTools = new Map<string, HostTool>();
  for (const tool of ownTools) hostTools.set(tool.model.id, tool);
  const id = `run_${randomUUID()}`;
  const conversationId = options.conversationId ?? `conv_${randomUUID()}`;
  const runOf = (context: RunContext, tools: readonly ModelTool[]): Run => ({
    id,
    agent: options.agent,
    conversationId,
    tools: () => tools.map((t) => structuredClone(t)),
    call: (toolName: string, input: unknown, callOptions?: CallOptions): Promise<ToolCallOutcome> =>
      invokeTool(deps, context, toolName, input, callOptions ?? {}),
  });
  const base = {
    id,
    agent: options.agent,
    conversationId,
    autoApprove: options.autoApprove === true,
    replica: place.replica,
    snapshot,
  };
  // The run host tools call through (run_code's inner calls): the snapshot, no host tools.
  const innerContext: RunContext = {
    ...base,
    hostTools: new Map(),
    get inner() {
      return inner;
    },
  };
  const inner = runOf(innerContext, served);
  const context: RunContext = { ...base, hostTools, inner };
  return runOf(context, listing(served, ownTools));
}
