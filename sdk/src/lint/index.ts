// `@airlock/sdk/lint`: the strict-mode lint as a library (the CLI's build and check use it too).
export { formatViolation, type LintableTool, lintError, lintManifestTools } from "./manifest-lint.ts";
export { FORBIDDEN_FORMATS, lintToolSchema, MAX_SCHEMA_DEPTH } from "./schema-lint.ts";
export type { LintRule, LintViolation } from "./types.ts";
