// The shape of a strict-mode lint finding. Every finding fails: there is no "warning" level.
export type LintRule = "format" | "optional" | "open-object" | "description" | "depth";

export interface LintViolation {
  /** The tool whose input schema broke the rule (set by lintManifestTools). */
  tool?: string;
  /** JSON path inside the tool's input schema, e.g. `$.properties.limit`. */
  path: string;
  rule: LintRule;
  /** What is wrong, in one sentence. */
  message: string;
  /** What to change in the Zod schema to fix it. */
  fix: string;
}
