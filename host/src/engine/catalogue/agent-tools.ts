// Per-agent views of the catalogue: which tools an agent has enabled, which required secrets
// it lacks, and so which tools are served to it. A new plugin's tools are off for every agent
// until an operator enables them (no enablement row means off). A tool is served when it is
// enabled and none of its required (non-optional) secrets is missing.
import { AirlockError } from "@airlock/sdk";
import type { AgentToolView, CatalogueTool } from "../../contracts/host.ts";
import type { AgentRecord, Store } from "../../state/store/types.ts";
import { type Catalogue, type CatalogueEntry, canonicalToolId } from "./catalogue.ts";
import { CATALOGUE_ERRORS } from "./errors.ts";
import { servedLabels } from "./served-tool.ts";

export function catalogueError(code: keyof typeof CATALOGUE_ERRORS, message: string): AirlockError {
  return new AirlockError(code, message, { status: CATALOGUE_ERRORS[code].status });
}

export async function requireAgent(store: Store, slug: string): Promise<AgentRecord> {
  const agent = typeof slug === "string" ? await store.getAgent(slug) : null;
  if (agent === null) throw catalogueError("AIRLOCK_AGENT_NOT_FOUND", `no agent "${String(slug)}"`);
  return agent;
}

/** A catalogue entry as the admin API lists it; `agentLevel` as servedLabels takes it. */
export function toCatalogueTool(entry: CatalogueEntry, agentLevel?: string | null): CatalogueTool {
  const { annotations, grants } = servedLabels(entry.tool, entry.plugin.manifest, agentLevel);
  const tool: CatalogueTool = {
    id: entry.id,
    namespace: entry.namespace,
    name: entry.tool.name,
    version: entry.version,
    description: entry.tool.description,
    category: entry.tool.category,
    requiredSecrets: entry.tool.requiredSecrets.map((s) => ({ ...s })),
    annotations,
    inputSchema: entry.tool.inputSchema,
  };
  if (grants !== null) {
    tool.grants = grants;
    tool.claimedAnnotations = { ...entry.tool.annotations };
  }
  return tool;
}

/** Required (non-optional) secret keys of a tool that are not in `setKeys`. */
export function missingSecrets(entry: CatalogueEntry, setKeys: ReadonlySet<string>): string[] {
  if (entry.tool.requiredSecrets.length === 0) return [];
  return entry.tool.requiredSecrets.filter((s) => !s.optional && !setKeys.has(s.key)).map((s) => s.key);
}

/** What the pipeline and runs need to know about an agent right now. */
export interface AgentState {
  agent: AgentRecord;
  enabled: ReadonlySet<string>;
  secretKeys: ReadonlySet<string>;
}

export async function loadAgentState(store: Store, slug: string): Promise<AgentState> {
  const agent = await requireAgent(store, slug);
  const [enabled, secrets] = await Promise.all([store.listEnabledTools(slug), store.listSecrets(slug)]);
  return { agent, enabled: new Set(enabled), secretKeys: new Set(secrets.map((s) => s.key)) };
}

export function agentToolView(entry: CatalogueEntry, state: AgentState): AgentToolView {
  const missing = missingSecrets(entry, state.secretKeys);
  const enabled = state.enabled.has(entry.id);
  return {
    ...toCatalogueTool(entry, state.agent.knowledgeLevel),
    enabled,
    missingSecrets: missing,
    served: enabled && missing.length === 0,
  };
}

export async function listAgentTools(
  store: Store,
  catalogue: Catalogue,
  slug: string,
): Promise<AgentToolView[]> {
  const state = await loadAgentState(store, slug);
  return catalogue.tools().map((entry) => agentToolView(entry, state));
}

/**
 * Applies enablement changes. Every key must name a catalogue tool (`ns:tool` or `ns__tool`;
 * harness tools cannot be enabled, they are injected per run); nothing is written unless all are valid.
 */
export async function setToolsEnabled(
  store: Store,
  catalogue: Catalogue,
  slug: string,
  changes: Record<string, boolean>,
): Promise<AgentToolView[]> {
  await requireAgent(store, slug);
  const resolved: Array<[string, boolean]> = [];
  for (const [name, enabled] of Object.entries(changes ?? {})) {
    const id = canonicalToolId(name);
    const entry = id === undefined ? undefined : catalogue.get(id);
    if (entry === undefined || entry.tool.harness !== null) {
      throw catalogueError("AIRLOCK_CATALOGUE_TOOL_UNKNOWN", `no catalogue tool "${name}"`);
    }
    if (typeof enabled !== "boolean") {
      throw catalogueError("AIRLOCK_CATALOGUE_INVALID_CHANGE", `"${name}" must map to true or false`);
    }
    resolved.push([entry.id, enabled]);
  }
  for (const [id, enabled] of resolved) await store.setToolEnabled(slug, id, enabled);
  return listAgentTools(store, catalogue, slug);
}
