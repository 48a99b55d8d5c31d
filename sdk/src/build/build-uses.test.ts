// `airlock-plugin build` with per-tool grants: `uses` is carried into the manifest per tool, and a
// tool whose `uses` exceeds its plugin's declaration is refused (AIRLOCK_SDK_BUILD_USES_EXCEEDED)
// with every problem's JSON path, and nothing is written.
import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { copyFixture, type FixtureCopy, rejection } from "../../test/support/fixtures.ts";
import { buildPlugin } from "./build-plugin.ts";

const copies: FixtureCopy[] = [];
afterEach(async () => {
  await Promise.all(copies.splice(0).map((c) => c.remove()));
});

/** The notes fixture with `uses` added to searchNotes (`uses` is the source text of the object). */
async function notesWithUses(uses: string): Promise<string> {
  const copy = await copyFixture("notes");
  copies.push(copy);
  const file = join(copy.dir, "src/search-notes.ts");
  const source = await readFile(file, "utf8");
  await writeFile(file, source.replace('category: "knowledge",', `category: "knowledge",\n  uses: ${uses},`));
  return copy.dir;
}

describe("build with per-tool uses", () => {
  it("carries each tool's uses into the manifest, and leaves a tool without uses in the legacy mode", async () => {
    const dir = await notesWithUses(
      '{ knowledge: "read", state: "write", artifacts: ["take"], fetch: [{ host: "api.notes.example", methods: ["GET"] }], secrets: ["notes_api_key"] }',
    );
    const { manifest } = await buildPlugin(dir);
    expect(manifest.tools.find((t) => t.name === "searchNotes")?.uses).toEqual({
      knowledge: "read",
      state: "write",
      artifacts: ["take"],
      fetch: [{ host: "api.notes.example", methods: ["GET"] }],
      secrets: ["notes_api_key"],
    });
    expect(manifest.tools.find((t) => t.name === "appendNote")).not.toHaveProperty("uses");
    const onDisk = JSON.parse(await readFile(join(dir, "dist/airlock.json"), "utf8"));
    expect(onDisk.tools[0].uses.knowledge).toBe("read");
  });

  it("refuses uses beyond the plugin's declaration, naming each path, and writes nothing", async () => {
    const dir = await notesWithUses(
      '{ knowledge: "manage", fetch: [{ host: "evil.example", methods: ["POST"] }], secrets: ["other_key"], models: true, oauth: ["github"] }',
    );
    const err = await rejection(() => buildPlugin(dir));
    expect(err.code).toBe("AIRLOCK_SDK_BUILD_USES_EXCEEDED");
    const problems = err.details?.problems as Array<{ path: string }>;
    expect(problems.map((p) => p.path)).toEqual([
      "$.tools[0].uses.knowledge",
      "$.tools[0].uses.fetch[0].host",
      "$.tools[0].uses.secrets[0]",
      "$.tools[0].uses.models",
      "$.tools[0].uses.oauth[0]",
    ]);
    expect(err.message).toContain('uses knowledge "manage" but the plugin declares knowledge "write"');
    expect(err.message).toContain("evil.example");
    expect(existsSync(join(dir, "dist"))).toBe(false);
  });

  it("refuses a malformed uses at definition time, naming the field", async () => {
    const dir = await notesWithUses('{ knowledge: "admin" }');
    const err = await rejection(() => buildPlugin(dir));
    expect(err.code).toBe("AIRLOCK_SDK_TOOL_INVALID");
    expect(err.message).toContain("uses.knowledge");
  });
});
