import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { CALL_STAGES } from "./index.ts";

const pipelineDir = fileURLToPath(new URL("..", import.meta.url));
const docs = readFileSync(fileURLToPath(new URL("../../../../../docs/pipeline.md", import.meta.url)), "utf8");

/** The rows of docs/pipeline.md's stage table: `| n | \`name\` | \`file\` | …`. */
function documentedStages(): { name: string; file: string }[] {
  const rows = [...docs.matchAll(/^\| (\d+) \| `([a-z-]+)` \| `(stages\/[a-z-]+\.ts)` \|/gm)];
  return rows.map((row) => ({ name: row[2] ?? "", file: row[3] ?? "" }));
}

describe("the call stages", () => {
  it("lists each stage under its own name, in a file of its own that exists", () => {
    const files = new Set<string>();
    for (const listed of CALL_STAGES) {
      expect(listed.stage.name).toBe(listed.name);
      expect(existsSync(`${pipelineDir}${listed.file}`)).toBe(true);
      files.add(listed.file);
    }
    expect(files.size).toBe(CALL_STAGES.length);
  });

  it("is described by docs/pipeline.md in the same order, with the same files", () => {
    expect(documentedStages()).toEqual(CALL_STAGES.map(({ name, file }) => ({ name, file })));
  });

  it("opens the span and announces the call before any stage can refuse it", () => {
    const names: string[] = CALL_STAGES.map((s) => s.name);
    const firstRefusing = names.indexOf("subject");
    for (const opener of ["tracing", "events", "audit", "after-hooks"]) {
      expect(names.indexOf(opener)).toBeLessThan(firstRefusing);
    }
  });
});
