// Skills a plugin ships (format in skills-format.ts): the sha512 of each listed file, and the
// check that a manifest's skills match their hashes and front matter. The tarball reader runs it
// after parseManifest (so the installer and the registry verify every skill), the build after
// composing. Uses node:crypto: not reachable from the SDK's bundled entry.
import { createHash } from "node:crypto";
import { AirlockError } from "./errors.ts";
import type { PluginManifest } from "./manifest.ts";
import { parseSkillMarkdown, SKILL_FILE, type SkillManifest } from "./skills-format.ts";

export * from "./skills-format.ts";

export const textIntegrity = (text: string): string =>
  `sha512-${createHash("sha512").update(text, "utf8").digest("base64")}`;

/** What is wrong with the skills a manifest lists (hashes that do not match, bad front matter), as path → message. */
export function skillProblems(skills: readonly SkillManifest[]): Array<{ path: string; message: string }> {
  const problems: Array<{ path: string; message: string }> = [];
  const seen = new Set<string>();
  skills.forEach((skill, i) => {
    const at = `$.skills[${i}]`;
    if (seen.has(skill.id))
      problems.push({ path: `${at}.id`, message: `skill id ${skill.id} is listed twice` });
    seen.add(skill.id);
    if (textIntegrity(skill.source) !== skill.integrity) {
      problems.push({ path: `${at}.integrity`, message: "does not match the SKILL.md content" });
    }
    try {
      const parsed = parseSkillMarkdown(`skills/${skill.id}/${SKILL_FILE}`, skill.source);
      if (parsed.name !== skill.name || parsed.description !== skill.description) {
        problems.push({
          path: `${at}.name`,
          message: "name or description differs from the SKILL.md front matter",
        });
      }
    } catch (error) {
      problems.push({ path: `${at}.source`, message: (error as Error).message });
    }
    skill.references.forEach((ref, j) => {
      if (textIntegrity(ref.content) !== ref.integrity) {
        problems.push({
          path: `${at}.references[${j}].integrity`,
          message: `does not match the content of ${ref.path}`,
        });
      }
    });
  });
  return problems;
}

/** Throws AIRLOCK_MANIFEST_INVALID (with each problem's path) when a listed skill does not match its hashes. */
export function verifyManifestSkills(manifest: Pick<PluginManifest, "skills">): void {
  const issues = skillProblems(manifest.skills ?? []);
  if (issues.length === 0) return;
  throw new AirlockError(
    "AIRLOCK_MANIFEST_INVALID",
    `invalid plugin manifest: ${issues[0]?.path}: ${issues[0]?.message}`,
    { status: 422, details: { issues } },
  );
}
