// `airlock-plugin build` refuses what the installer would refuse later: a manifest string holding
// a lone UTF-16 surrogate (AIRLOCK_MANIFEST_NOT_UNICODE naming its path), a package.json string
// holding one (AIRLOCK_PACKAGE_JSON_NOT_UNICODE), and a human-read name (a tool title, a skill
// name) holding a character readable-names.ts refuses; nothing is written.
import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { copyFixture, type FixtureCopy, rejection } from "../../test/support/fixtures.ts";
import { parseSkillMarkdown } from "../skills-format.ts";
import { buildPlugin } from "./build-plugin.ts";

const copies: FixtureCopy[] = [];
async function notes(): Promise<string> {
  const copy = await copyFixture("notes");
  copies.push(copy);
  return copy.dir;
}
afterEach(async () => {
  await Promise.all(copies.splice(0).map((c) => c.remove()));
});

async function patch(dir: string, file: string, from: string, to: string): Promise<void> {
  const text = await readFile(join(dir, file), "utf8");
  if (!text.includes(from)) throw new Error(`fixture: ${from} not in ${file}`);
  await writeFile(join(dir, file), text.replace(from, to));
}

describe("build refuses text that is not Unicode, and names a person cannot read", () => {
  it("refuses a tool description holding a lone surrogate with AIRLOCK_MANIFEST_NOT_UNICODE naming it", async () => {
    const dir = await notes();
    await patch(
      dir,
      "src/search-notes.ts",
      '"Searches the notes for a phrase."',
      '"Searches \\ud800 notes."',
    );
    const err = await rejection(() => buildPlugin(dir));
    expect(err.code).toBe("AIRLOCK_MANIFEST_NOT_UNICODE");
    expect(err.details).toEqual({ path: "$.tools[0].description" });
    expect(existsSync(join(dir, "dist"))).toBe(false);
  });

  it("refuses a package.json field holding a lone surrogate with AIRLOCK_PACKAGE_JSON_NOT_UNICODE", async () => {
    const dir = await notes();
    await patch(dir, "package.json", '"@fixtures/notes"', '"@fixtures/notes\\udc00"');
    const err = await rejection(() => buildPlugin(dir));
    expect(err.code).toBe("AIRLOCK_PACKAGE_JSON_NOT_UNICODE");
    expect(err.details).toMatchObject({ file: "package.json", path: "$.name" });
    expect(existsSync(join(dir, "dist"))).toBe(false);
  });

  it.each([
    ["a right-to-left override", "\\u202Etxt.exe"],
    ["a zero-width joiner", "Search\\u200Dnotes"],
    ["a line separator", "Search\\u2028notes"],
  ])(
    "refuses a tool title holding %s with AIRLOCK_MANIFEST_INVALID naming the title",
    async (_what, title) => {
      const dir = await notes();
      await patch(dir, "src/search-notes.ts", 'title: "Search notes"', `title: "${title}"`);
      const err = await rejection(() => buildPlugin(dir));
      expect(err.code).toBe("AIRLOCK_MANIFEST_INVALID");
      expect(err.message).toContain("$.tools[0].annotations.title");
      expect(existsSync(join(dir, "dist"))).toBe(false);
    },
  );

  it("refuses a skill name holding a format character with AIRLOCK_SDK_SKILL_INVALID", () => {
    const md = (name: string) => `---\nname: ${name}\ndescription: Reads notes.\n---\nBody.\n`;
    expect(parseSkillMarkdown("skills/a/SKILL.md", md("Notes")).name).toBe("Notes");
    for (const name of ["\u202Eexe.txt", "No\u200Btes", "Notes\u00AD", "No\uFEFFtes", "Notes\u2066"]) {
      let code: unknown;
      try {
        parseSkillMarkdown("skills/a/SKILL.md", md(name));
      } catch (err) {
        code = (err as { code?: unknown }).code;
      }
      expect([name, code]).toEqual([name, "AIRLOCK_SDK_SKILL_INVALID"]);
    }
  });
});
