// The installer and plugin lifecycle (host/src/engine/install/): createPluginLifecycle and its parts.
export { checkCompatibility, pickVersion } from "./compat.ts";
export type { LifecycleFaults, PluginLifecycleOptions } from "./context.ts";
export { INSTALL_ERRORS, type InstallErrorCode } from "./errors.ts";
export { pluginsRoot, stagingRoot, versionDir } from "./files.ts";
export { createPluginLifecycle, type ManagedPluginLifecycle, type RecoveryReport } from "./lifecycle.ts";
export { decideSigner, loadTrustKeys, type TrustConfig } from "./trust.ts";
export { pluginWriter } from "./uninstall.ts";
