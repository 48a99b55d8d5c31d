// The model's code → the source the code-mode runtime evaluates: `(async () => {\n<code>\n})`
// with TypeScript types stripped (Node's `module.stripTypeScriptTypes`, strip-only: every
// character of the code keeps its line and column, so a line the isolate reports is the
// model's line). Code that does not parse gets esbuild's located message instead.
// Invariants: never throws for bad code (a syntax failure is a value with line and column);
// constructs that strip-only mode cannot erase (enum, namespace, parameter properties) are
// syntax failures that say so. esbuild loads on the first syntax failure, not with the host
// (loading it cost every host start, `airlock mcp` included, ≈ 20 ms).
import { stripTypeScriptTypes } from "node:module";

export type Stripped =
  | { ok: true; source: string }
  | { ok: false; message: string; line?: number; column?: number };

const HEAD = "(async () => {\n";
const TAIL = "\n})";
const SOURCE_URL = "\n//# sourceURL=run_code.ts";

/** esbuild's first error for the code as TypeScript, with its line (1-based) and column. */
async function locate(code: string): Promise<{ message: string; line?: number; column?: number } | null> {
  const { transform } = await import("esbuild");
  try {
    await transform(`${HEAD}${code}${TAIL}`, { loader: "ts", logLevel: "silent" });
    return null;
  } catch (error) {
    const first = (
      error as { errors?: Array<{ text: string; location: { line: number; column: number } | null }> }
    ).errors?.[0];
    if (first === undefined) return null;
    if (first.location === null) return { message: first.text };
    return { message: first.text, line: first.location.line - 1, column: first.location.column + 1 };
  }
}

export async function stripCode(code: string): Promise<Stripped> {
  let source: string;
  try {
    source = stripTypeScriptTypes(`${HEAD}${code}${TAIL}`, { mode: "strip" });
  } catch (error) {
    const located = await locate(code);
    const reason = error instanceof Error ? error.message : String(error);
    if (located !== null && located.line !== undefined && located.line >= 1) return { ok: false, ...located };
    return { ok: false, message: located?.message ?? reason };
  }
  return { ok: true, source: `${source}${SOURCE_URL}` };
}
