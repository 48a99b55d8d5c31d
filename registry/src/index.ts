// `@airlock/registry`: the plugin registry server as a library.
export { createRegistryApp, type RegistryAppOptions } from "./app.ts";
export { REGISTRY_HELP, type RegistryCliIO, runRegistryCli } from "./cli.ts";
export { REGISTRY_ERRORS, type RegistryErrorCode } from "./errors.ts";
export { checkNewName, confusableSkeleton } from "./names.ts";
export { buildPackument, type Packument, type PackumentVersion, tarballFileName } from "./packument.ts";
export { publish } from "./publish.ts";
export { type RunningRegistry, type StartRegistryOptions, startRegistry } from "./server.ts";
export {
  hashToken,
  type PackageRow,
  type PublisherToken,
  RegistryStorage,
  type VersionRow,
} from "./storage.ts";
