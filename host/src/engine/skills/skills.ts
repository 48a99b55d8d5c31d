// Skills as the host serves them: read only from the manifests of active, installed (verified)
// plugin versions — parseManifest checked every listed hash at install — never from a directory.
// A skill is `<ns>:skill:<id>`; it is enabled per agent like a tool (the same enablement rows,
// under a key no tool id can take), off until an operator enables it. An agent sees one line per
// enabled skill and reads the body of one it has enabled; anything else is AIRLOCK_SKILL_UNKNOWN.
import { type SkillManifest, skillBody } from "@airlock/sdk/skills";
import type { SkillDocument, SkillView } from "../../contracts/tools.ts";
import type { Store } from "../../state/store/types.ts";
import type { Catalogue } from "../catalogue/catalogue.ts";
import { skillError } from "./errors.ts";

export type { SkillDocument, SkillView };

export const skillKey = (namespace: string, id: string): string => `${namespace}:skill:${id}`;

function allSkills(catalogue: Catalogue): Array<{ key: string; namespace: string; skill: SkillManifest }> {
  const out: Array<{ key: string; namespace: string; skill: SkillManifest }> = [];
  for (const [namespace, record] of catalogue.plugins()) {
    for (const skill of record.manifest.skills ?? [])
      out.push({ key: skillKey(namespace, skill.id), namespace, skill });
  }
  return out.sort((a, b) => a.key.localeCompare(b.key));
}

/** Every skill of the active plugins, with whether the agent has it enabled. */
export async function listSkills(store: Store, catalogue: Catalogue, agent: string): Promise<SkillView[]> {
  const enabled = new Set(await store.listEnabledTools(agent));
  return allSkills(catalogue).map(({ key, namespace, skill }) => ({
    id: key,
    namespace,
    name: skill.name,
    description: skill.description,
    enabled: enabled.has(key),
  }));
}

/** Applies skill enablement changes; nothing is written unless every key names a skill. */
export async function setSkillsEnabled(
  store: Store,
  catalogue: Catalogue,
  agent: string,
  changes: Record<string, boolean>,
): Promise<SkillView[]> {
  const known = new Set(allSkills(catalogue).map((s) => s.key));
  const entries = Object.entries(changes ?? {});
  for (const [key, value] of entries) {
    if (!known.has(key))
      throw skillError("AIRLOCK_SKILL_INVALID_CHANGE", `no skill "${key}" (skills are <ns>:skill:<id>)`);
    if (typeof value !== "boolean")
      throw skillError("AIRLOCK_SKILL_INVALID_CHANGE", `"${key}" must map to true or false`);
  }
  for (const [key, value] of entries) await store.setToolEnabled(agent, key, value);
  return listSkills(store, catalogue, agent);
}

/** The body of a skill the agent has enabled; AIRLOCK_SKILL_UNKNOWN otherwise. */
export async function readSkill(
  store: Store,
  catalogue: Catalogue,
  agent: string,
  key: string,
): Promise<SkillDocument> {
  const found = allSkills(catalogue).find((s) => s.key === key);
  const enabled = found !== undefined && (await store.listEnabledTools(agent)).includes(key);
  if (found === undefined || !enabled)
    throw skillError("AIRLOCK_SKILL_UNKNOWN", `no skill "${String(key).slice(0, 200)}" for this agent`);
  const { skill } = found;
  return {
    id: key,
    name: skill.name,
    description: skill.description,
    body: skillBody(skill),
    references: skill.references.map((r) => ({ path: r.path, content: r.content })),
  };
}
