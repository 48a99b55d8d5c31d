// The build's half of skills (sdk/src/skills.ts): reads `skills/<id>/SKILL.md` and its reference
// files from a plugin's sources, validating each (AIRLOCK_SDK_SKILL_INVALID naming the file).
import { existsSync } from "node:fs";
import { lstat, readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { sdkError } from "../error-codes.ts";
import {
  MAX_SKILL_FILE_BYTES,
  MAX_SKILL_REFERENCES,
  MAX_SKILLS,
  parseSkillMarkdown,
  REFERENCE_NAME,
  SKILL_FILE,
  SKILL_ID_PATTERN,
  type SkillManifest,
  type SkillReference,
  textIntegrity,
} from "../skills.ts";

async function readText(file: string, shown: string): Promise<string> {
  const info = await lstat(file);
  if (!info.isFile())
    throw sdkError(
      "AIRLOCK_SDK_SKILL_INVALID",
      `${shown}: not a regular file (links and folders are not shipped)`,
    );
  if (info.size > MAX_SKILL_FILE_BYTES) {
    throw sdkError("AIRLOCK_SDK_SKILL_INVALID", `${shown}: over ${MAX_SKILL_FILE_BYTES} bytes`);
  }
  const bytes = await readFile(file);
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw sdkError("AIRLOCK_SDK_SKILL_INVALID", `${shown}: not UTF-8 text`);
  }
}

/** The skills under `<pluginDir>/skills/`, validated, sorted by id; [] when there is no such folder. */
export async function readSkills(pluginDir: string): Promise<SkillManifest[]> {
  const root = join(pluginDir, "skills");
  if (!existsSync(root)) return [];
  const ids = (await readdir(root)).sort();
  if (ids.length > MAX_SKILLS)
    throw sdkError("AIRLOCK_SDK_SKILL_INVALID", `skills/: more than ${MAX_SKILLS} skills`);
  const skills: SkillManifest[] = [];
  for (const id of ids) {
    const dir = join(root, id);
    if (!(await lstat(dir)).isDirectory()) {
      throw sdkError("AIRLOCK_SDK_SKILL_INVALID", `skills/${id}: only folders skills/<id>/ are allowed here`);
    }
    if (!SKILL_ID_PATTERN.test(id)) {
      throw sdkError("AIRLOCK_SDK_SKILL_INVALID", `skills/${id}: a skill id is ${SKILL_ID_PATTERN}`);
    }
    const entries = (await readdir(dir)).sort();
    if (!entries.includes(SKILL_FILE))
      throw sdkError("AIRLOCK_SDK_SKILL_INVALID", `skills/${id}: no ${SKILL_FILE}`);
    const source = await readText(join(dir, SKILL_FILE), `skills/${id}/${SKILL_FILE}`);
    const { name, description } = parseSkillMarkdown(`skills/${id}/${SKILL_FILE}`, source);
    const others = entries.filter((e) => e !== SKILL_FILE);
    if (others.length > MAX_SKILL_REFERENCES) {
      throw sdkError(
        "AIRLOCK_SDK_SKILL_INVALID",
        `skills/${id}: more than ${MAX_SKILL_REFERENCES} reference files`,
      );
    }
    const references: SkillReference[] = [];
    for (const file of others) {
      if (!REFERENCE_NAME.test(file)) {
        throw sdkError(
          "AIRLOCK_SDK_SKILL_INVALID",
          `skills/${id}/${file}: a reference file name is ${REFERENCE_NAME}`,
        );
      }
      const content = await readText(join(dir, file), `skills/${id}/${file}`);
      references.push({ path: file, integrity: textIntegrity(content), content });
    }
    skills.push({ id, name, description, integrity: textIntegrity(source), source, references });
  }
  return skills;
}
