// `@airlock/sdk/build`: the build and pack steps as a library (Node only; the CLI and
// `@airlock/sdk/testing` use them). Never imported by the part bundled into plugins.

export { type PublishDocument, publishDocument } from "../package/publish-document.ts";
export {
  type BuildOptions,
  type BuildResult,
  buildPlugin,
  type ComposedPlugin,
  composePlugin,
  composeRawManifest,
  DIST_DIR,
  resolveEntry,
} from "./build-plugin.ts";
export { type DescribedPlugin, describeWithExamples } from "./describe.ts";
export { JSON_SCHEMA_TARGET, toJsonSchema } from "./json-schema.ts";
export {
  PACK_MTIME,
  PACKED_FILES,
  type PackResult,
  packPlugin,
  readDist,
  tarballName,
  tarballOf,
} from "./pack.ts";
