// What changes when a plugin moves from one manifest to another (install over an active version,
// upgrade, rollback): tools added and removed, descriptions, input schemas and annotations
// changed, secrets newly asked for, egress hosts added, the knowledge level asked for. Pure: the
// operator reads this before confirming, so it compares manifests only and runs nothing.
import type { PluginManifest, ToolManifest } from "@airlock/sdk/manifest";

export interface ToolChange {
  tool: string;
  description?: { from: string; to: string };
  inputSchema?: boolean;
  annotations?: boolean;
}

export interface PluginDiff {
  namespace: string;
  from: string | null;
  to: string;
  toolsAdded: string[];
  toolsRemoved: string[];
  toolsChanged: ToolChange[];
  secretsAdded: string[];
  secretsRemoved: string[];
  egressAdded: string[];
  egressRemoved: string[];
  knowledge: { from: string | null; to: string | null } | null;
}

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

function visibleTools(m: PluginManifest | null): Map<string, ToolManifest> {
  return new Map((m?.tools ?? []).map((t) => [t.name, t]));
}

function secretKeys(m: PluginManifest | null): Set<string> {
  return new Set((m?.tools ?? []).flatMap((t) => t.requiredSecrets.map((s) => s.key)));
}

function egressHosts(m: PluginManifest | null): Set<string> {
  return new Set((m?.egress ?? []).map((rule) => rule.host));
}

const minus = <T>(a: Set<T>, b: Set<T>): T[] => [...a].filter((x) => !b.has(x)).sort() as T[];

/** The changes from `from` (null: nothing installed) to `to`. */
export function diffManifests(from: PluginManifest | null, to: PluginManifest): PluginDiff {
  const before = visibleTools(from);
  const after = visibleTools(to);
  const toolsChanged: ToolChange[] = [];
  for (const [name, next] of after) {
    const prev = before.get(name);
    if (prev === undefined) continue;
    const change: ToolChange = { tool: `${to.namespace}:${name}` };
    if (prev.description !== next.description)
      change.description = { from: prev.description, to: next.description };
    if (!same(prev.inputSchema, next.inputSchema)) change.inputSchema = true;
    if (!same(prev.annotations, next.annotations)) change.annotations = true;
    if (Object.keys(change).length > 1) toolsChanged.push(change);
  }
  const id = (name: string) => `${to.namespace}:${name}`;
  return {
    namespace: to.namespace,
    from: from?.version ?? null,
    to: to.version,
    toolsAdded: minus(new Set(after.keys()), new Set(before.keys())).map(id),
    toolsRemoved: minus(new Set(before.keys()), new Set(after.keys())).map(id),
    toolsChanged,
    secretsAdded: minus(secretKeys(to), secretKeys(from)),
    secretsRemoved: minus(secretKeys(from), secretKeys(to)),
    egressAdded: minus(egressHosts(to), egressHosts(from)),
    egressRemoved: minus(egressHosts(from), egressHosts(to)),
    knowledge:
      (from?.knowledge ?? null) === to.knowledge ? null : { from: from?.knowledge ?? null, to: to.knowledge },
  };
}
