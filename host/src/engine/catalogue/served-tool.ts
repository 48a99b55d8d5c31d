// What every listing serves of a tool's trust labels: its annotations derived from its per-tool
// grants (`uses`, sdk/src/tool-uses.ts) and the agent's knowledge level, and the effective grants
// they come from (`_meta["airlock/grants"]` on MCP, `grants` on the admin API), with the hash of
// the manifest that declared them. The one place listings take annotations from: runs' model
// tools (both MCP eras, code mode's search_tools) and the admin API's catalogue and agent views.
// Derivation (docs/behaviour.md): readOnlyHint iff the tool can write nothing (no knowledge or
// state write, no artifact put, no fetch with a method other than GET/HEAD); destructiveHint iff
// it can delete (knowledge manage: delete any document it may see; a DELETE fetch);
// openWorldHint iff it has any egress or model access; idempotentHint only when the author says
// so and the tool is read-only. The author's title is kept; the author's hints are not.
// Invariants: a legacy tool (no `uses`) is served exactly as before: the author's annotations,
// no grants; the agent's level only lowers knowledge (null or "none" removes it); pure but for
// the manifest hash, computed once per manifest object.
import { createHash } from "node:crypto";
import { knowledgeRank, SAFE_METHODS, type ToolUses } from "@airlock/sdk";
import type { PluginManifest, ToolAnnotations, ToolManifest } from "@airlock/sdk/manifest";
import type { EffectiveGrants } from "../../contracts/tools.ts";

export interface ServedLabels {
  annotations: ToolAnnotations;
  /** null: the legacy mode, grants not declared (annotations are the author's). */
  grants: EffectiveGrants | null;
}

const LEVELS = ["read", "write", "manage"] as const;
const hashes = new WeakMap<PluginManifest, string>();

function manifestHash(manifest: PluginManifest): string {
  let hash = hashes.get(manifest);
  if (hash === undefined) {
    hash = `sha256-${createHash("sha256").update(JSON.stringify(manifest)).digest("base64")}`;
    hashes.set(manifest, hash);
  }
  return hash;
}

/** Whether grants of `uses`, with knowledge at `rank`, can write anything (the derivation's read-only test). */
function writes(uses: ToolUses, rank: number): boolean {
  return (
    rank >= 2 ||
    uses.state === "write" ||
    (uses.artifacts ?? []).includes("put") ||
    (uses.fetch ?? []).some((f) => f.methods.some((m) => !SAFE_METHODS.has(m)))
  );
}

/** Whether grants of `uses`, with knowledge at `rank`, can delete (the derivation's destructive test). */
function deletes(uses: ToolUses, rank: number): boolean {
  return rank >= 3 || (uses.fetch ?? []).some((f) => (f.methods as readonly string[]).includes("DELETE"));
}

/**
 * Read-only as the host acts on it (approvals, resuming a task on another replica): derived from
 * the tool's own grants when it declares them (no agent in view: its declared knowledge stands),
 * else its author's `readOnlyHint`, as before.
 */
export function isReadOnly(tool: Pick<ToolManifest, "uses" | "annotations">): boolean {
  return tool.uses === undefined
    ? tool.annotations.readOnlyHint === true
    : !writes(tool.uses, knowledgeRank(tool.uses.knowledge));
}

/**
 * Destructive as the host acts on it (an agent's approval policy for destructive tools): derived
 * from the tool's own grants when it declares them (knowledge manage, or a DELETE fetch), else its
 * author's `destructiveHint`, true unless the author says false (MCP's default for a tool that is
 * not read-only).
 */
export function isDestructive(tool: Pick<ToolManifest, "uses" | "annotations">): boolean {
  if (tool.uses === undefined) return tool.annotations.destructiveHint !== false;
  return deletes(tool.uses, knowledgeRank(tool.uses.knowledge));
}

/**
 * The labels a listing serves for `tool` of `manifest`. `agentLevel`: the agent's knowledge
 * level (a level, "none" or null); undefined when no agent is in view (the catalogue), where
 * the tool's own declaration stands.
 */
export function servedLabels(
  tool: ToolManifest,
  manifest: PluginManifest,
  agentLevel?: string | null,
): ServedLabels {
  const uses = tool.uses;
  if (uses === undefined) return { annotations: { ...tool.annotations }, grants: null };
  const cap = agentLevel === undefined ? 3 : knowledgeRank(agentLevel);
  const rank = Math.min(knowledgeRank(uses.knowledge), cap);
  const grants: EffectiveGrants = {
    knowledge: rank === 0 ? null : (LEVELS[rank - 1] ?? null),
    state: uses.state ?? null,
    artifacts: [...(uses.artifacts ?? [])],
    fetch: (uses.fetch ?? []).map((f) => ({ host: f.host, methods: [...f.methods] })),
    secrets: [...new Set([...tool.requiredSecrets.map((s) => s.key), ...(uses.secrets ?? [])])],
    models: uses.models === true,
    oauth: [...(uses.oauth ?? [])],
    manifest: manifestHash(manifest),
  };
  const readOnly = !writes(uses, rank);
  const annotations: ToolAnnotations = {
    readOnlyHint: readOnly,
    destructiveHint: deletes(uses, rank),
    idempotentHint: readOnly && tool.annotations.idempotentHint === true,
    openWorldHint: grants.fetch.length > 0 || grants.models,
  };
  if (tool.annotations.title !== undefined) annotations.title = tool.annotations.title;
  return { annotations, grants };
}
