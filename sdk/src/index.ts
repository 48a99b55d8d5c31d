// Public entry of the Airlock SDK, the part bundled into plugins: no node:* imports here.
export * from "./context.ts";
export * from "./errors.ts";
export * from "./names.ts";
export * from "./result.ts";
