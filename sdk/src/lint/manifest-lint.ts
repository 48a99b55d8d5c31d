// Lint over a whole manifest (or anything with its `tools` list), and the shared ways of
// reporting findings: as text lines (the CLI) and as one AirlockError (the build).
import { sdkError } from "../error-codes.ts";
import type { AirlockError } from "../errors.ts";
import { lintToolSchema } from "./schema-lint.ts";
import type { LintViolation } from "./types.ts";

export interface LintableTool {
  name: string;
  inputSchema: unknown;
}

/** Lints every tool's input schema; each violation carries the tool's name and a path inside its schema. */
export function lintManifestTools(manifest: { tools: readonly LintableTool[] }): LintViolation[] {
  return manifest.tools.flatMap((tool) =>
    lintToolSchema(tool.inputSchema).map((v) => ({ tool: tool.name, ...v })),
  );
}

/** One finding as text: `<tool> <path> [rule] message` then an indented `fix:` line. */
export function formatViolation(v: LintViolation): string {
  const where = v.tool === undefined ? v.path : `${v.tool} ${v.path}`;
  return `${where} [${v.rule}] ${v.message}\n    fix: ${v.fix}`;
}

/** AIRLOCK_SDK_LINT_FAILED listing every violation (message) and carrying them (details.violations). */
export function lintError(violations: readonly LintViolation[]): AirlockError {
  const n = violations.length;
  return sdkError(
    "AIRLOCK_SDK_LINT_FAILED",
    `strict-mode lint failed with ${n} violation${n === 1 ? "" : "s"}:\n${violations.map(formatViolation).join("\n")}`,
    { details: { violations: violations.map((v) => ({ ...v })) } },
  );
}
