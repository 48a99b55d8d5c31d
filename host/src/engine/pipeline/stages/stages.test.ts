import { existsSync, readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { CALL_STAGES } from "./index.ts";

const pipelineDir = fileURLToPath(new URL("..", import.meta.url));
const docs = readFileSync(fileURLToPath(new URL("../../../../../docs/pipeline.md", import.meta.url)), "utf8");
const architecture = readFileSync(
  fileURLToPath(new URL("../../../../../docs/architecture.md", import.meta.url)),
  "utf8",
);

/** The files of host/src/engine/pipeline/ that docs/architecture.md's call path names, in order of first mention. */
function callPathFiles(): string[] {
  const block = architecture.slice(
    architecture.indexOf("<!-- call-path -->"),
    architecture.indexOf("<!-- /call-path -->"),
  );
  const named = [...block.matchAll(/`(?:engine\/pipeline\/)?((?:stages|executors)\/[a-z-]+\.ts)`/g)].map(
    (m) => m[1] ?? "",
  );
  return [...new Set(named)];
}

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

  it("is walked by docs/architecture.md's call path: every stage and executor file named, the refusing stages in order", () => {
    const named = callPathFiles();
    const executors = readdirSync(`${pipelineDir}executors`).filter((f) => !f.endsWith(".test.ts"));
    expect(named.filter((f) => f.startsWith("stages/") && f !== "stages/index.ts").sort()).toEqual(
      CALL_STAGES.map((s) => s.file).sort(),
    );
    expect(named.filter((f) => f.startsWith("executors/")).sort()).toEqual(
      executors.map((f) => `executors/${f}`).sort(),
    );
    // the stages from the first that can refuse a call to execute are walked in list order
    const from = CALL_STAGES.findIndex((s) => s.name === "subject");
    const to = CALL_STAGES.findIndex((s) => s.name === "execute");
    const walked: string[] = CALL_STAGES.slice(from, to + 1).map((s) => s.file);
    expect(named.filter((f) => walked.includes(f))).toEqual(walked);
  });

  it("opens the span and announces the call before any stage can refuse it", () => {
    const names: string[] = CALL_STAGES.map((s) => s.name);
    const firstRefusing = names.indexOf("subject");
    for (const opener of ["tracing", "events", "audit", "after-hooks"]) {
      expect(names.indexOf(opener)).toBeLessThan(firstRefusing);
    }
  });
});
