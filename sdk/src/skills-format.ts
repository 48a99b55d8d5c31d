// The format of the skills a plugin ships (`skills/<id>/SKILL.md`: YAML front matter with
// `name` ≤ 64 characters and `description` ≤ 1024, then the Markdown body; optional reference
// files beside it), as the manifest lists them. Pure: no node:* imports (manifest.ts uses it).
// The build reads them (build/skills.ts); skills.ts checks the listed hashes.
// Invariants: the front matter is the `key: value` subset of YAML (quoted or plain scalars); a
// malformed SKILL.md is AIRLOCK_SDK_SKILL_INVALID naming the file.
import { sdkError } from "./error-codes.ts";
import { READABLE_NAME_RULE, unreadableCharacter } from "./readable-names.ts";

export const SKILL_FILE = "SKILL.md";
export const SKILL_ID_PATTERN = /^[a-z][a-z0-9-]{0,63}$/;
export const MAX_SKILL_NAME = 64;
export const MAX_SKILL_DESCRIPTION = 1024;
export const MAX_SKILLS = 32;
export const MAX_SKILL_FILE_BYTES = 64 * 1024;
export const MAX_SKILL_REFERENCES = 16;
export const REFERENCE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

export interface SkillReference {
  path: string;
  integrity: string;
  content: string;
}

export interface SkillManifest {
  id: string;
  name: string;
  description: string;
  /** sha512 (SRI) of SKILL.md as shipped. */
  integrity: string;
  /** SKILL.md as shipped (front matter included). */
  source: string;
  references: SkillReference[];
}

function unquote(value: string): string {
  const v = value.trim();
  if ((v.startsWith('"') && v.endsWith('"')) || (v.startsWith("'") && v.endsWith("'"))) {
    const inner = v.slice(1, -1);
    return v.startsWith('"') ? (JSON.parse(v) as string) : inner.replace(/''/g, "'");
  }
  return v;
}

/** Front matter and body of a SKILL.md; throws AIRLOCK_SDK_SKILL_INVALID naming what is wrong. */
export function parseSkillMarkdown(
  where: string,
  text: string,
): { name: string; description: string; body: string } {
  const fail = (why: string) => sdkError("AIRLOCK_SDK_SKILL_INVALID", `${where}: ${why}`);
  const match = /^---\r?\n([\s\S]*?)\r?\n---\r?\n?([\s\S]*)$/.exec(text);
  if (match === null) throw fail("must start with YAML front matter between --- lines (name, description)");
  const fields = new Map<string, string>();
  for (const line of (match[1] as string).split(/\r?\n/)) {
    if (line.trim() === "" || line.trimStart().startsWith("#")) continue;
    const kv = /^([A-Za-z][A-Za-z0-9_-]*):(.*)$/.exec(line);
    if (kv === null) throw fail(`front matter line ${JSON.stringify(line.slice(0, 80))} is not "key: value"`);
    let value: string;
    try {
      value = unquote(kv[2] as string);
    } catch {
      throw fail(`front matter value of ${kv[1]} is not a valid quoted string`);
    }
    if (fields.has(kv[1] as string)) throw fail(`front matter key ${kv[1]} is given twice`);
    fields.set(kv[1] as string, value);
  }
  const name = fields.get("name") ?? "";
  const description = fields.get("description") ?? "";
  if (name === "") throw fail("front matter needs a name");
  if ([...name].length > MAX_SKILL_NAME) throw fail(`name is over ${MAX_SKILL_NAME} characters`);
  const unreadable = unreadableCharacter(name);
  if (unreadable !== null) throw fail(`name holds ${unreadable}; a skill name has ${READABLE_NAME_RULE}`);
  if (description === "") throw fail("front matter needs a description");
  if ([...description].length > MAX_SKILL_DESCRIPTION) {
    throw fail(`description is over ${MAX_SKILL_DESCRIPTION} characters`);
  }
  const body = (match[2] as string).trim();
  if (body === "") throw fail("the body after the front matter is empty");
  return { name, description, body };
}

/** The Markdown body of a skill (what an agent reads), front matter removed. */
export function skillBody(skill: SkillManifest): string {
  return parseSkillMarkdown(skill.id, skill.source).body;
}
