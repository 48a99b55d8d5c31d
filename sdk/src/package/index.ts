// Safe reading of plugin tarballs (`@airlock/sdk/package`), shared by the registry and the host.
// Node-only (node:zlib, node:crypto, tar): never re-exported from the bundled sdk/src/index.ts.

export {
  type CraftedEntry,
  gzip,
  paxRecord,
  type TarTypeFlag,
  tarArchive,
  writePluginTarball,
} from "./craft-tar.ts";
export { PACKAGE_ERRORS, type PackageErrorCode } from "./errors.ts";
export { type PublishDocument, type PublishSignature, publishDocument } from "./publish-document.ts";
export { type PluginTarball, readPluginTarball, sha512Integrity } from "./read-plugin-tarball.ts";
export {
  type SamplePluginFiles,
  type SamplePluginOptions,
  samplePluginFiles,
  samplePluginTarball,
} from "./sample-plugin.ts";
export { DEFAULT_TARBALL_LIMITS, PACKAGE_FILES, type TarballEntry, type TarballLimits } from "./untar.ts";
