// Public entry of the Airlock SDK, the part bundled into plugins: no node:* imports here,
// nothing from zod at runtime, and nothing of the build (JSON Schema happens in the CLI).

export * from "./apps-format.ts";
export * from "./bundle-runtime.ts";
export * from "./context.ts";
export * from "./define-plugin.ts";
export * from "./define-tool.ts";
export * from "./error-codes.ts";
export * from "./errors.ts";
export * from "./names.ts";
export * from "./oauth.ts";
export * from "./readable-names.ts";
export * from "./result.ts";
export * from "./tool-uses.ts";
