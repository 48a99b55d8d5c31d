// No function in host/src runs past 150 lines (issue 37, STYLE.md: one concern per piece). A
// function is any function-like node with a body — declarations, methods, arrows, the factories
// that return an object of closures — counted from its first line to its last, inclusive.
// Left aside, each for its reason:
// - the code that runs inside an isolate (isolation/sandbox/isolate/, the web runtime's
//   isolate/ sources, code mode's isolate/runtime.js): one self-contained script each, whose
//   closures must share one scope that nothing host-side can reach;
// - generated bundles (*.bundle.js);
// - test code (suites, their fixtures, and the store's shared conformance suite).
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const root = resolve(import.meta.dirname, "../..");
const src = join(root, "host", "src");
const LIMIT = 150;

const ASIDE = [
  /^isolation\/sandbox\/isolate\//,
  /^isolation\/sandbox\/runtime\/isolate\//,
  /^engine\/code-mode\/isolate\//,
  /\.bundle\.js$/,
  /\.test\.ts$/,
  /(^|\/)test-[a-z-]+\.ts$/,
  /(^|\/)plugin-fixture\.ts$/,
  /^state\/store\/conformance\.ts$/,
];

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) return sources(full);
    return /\.(ts|js)$/.test(name) ? [full] : [];
  });
}

/** `file:line (n lines)` for every function in `file` longer than LIMIT lines. */
function longFunctions(file: string, text = readFileSync(file, "utf8")): string[] {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const out: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && "body" in node && node.body !== undefined) {
      const first = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line;
      const last = sf.getLineAndCharacterOfPosition(node.getEnd()).line;
      const lines = last - first + 1;
      if (lines > LIMIT) out.push(`${relative(src, file)}:${first + 1} (${lines} lines)`);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return out;
}

describe("function size in host/src", () => {
  it(`has no function over ${LIMIT} lines`, () => {
    const files = sources(src).filter((f) => !ASIDE.some((re) => re.test(relative(src, f))));
    expect(files.length).toBeGreaterThan(100);
    expect(files.flatMap((f) => longFunctions(f))).toEqual([]);
  });

  it("catches a 151-line function, an arrow or a method inside another, and passes a 150-line one", () => {
    const lines = (n: number) => "  x();\n".repeat(n - 2);
    const probe = join(src, "probe.ts");
    expect(longFunctions(probe, `function f() {\n${lines(150)}}\n`)).toEqual([]);
    expect(longFunctions(probe, `function f() {\n${lines(151)}}\n`)).toEqual(["probe.ts:1 (151 lines)"]);
    expect(longFunctions(probe, `const o = {\n  m() {\n${lines(151)}  },\n};\n`)).toEqual([
      "probe.ts:2 (151 lines)",
    ]);
    expect(longFunctions(probe, `export const g = () => {\n${lines(151)}};\n`)).toEqual([
      "probe.ts:1 (151 lines)",
    ]);
  });
});
