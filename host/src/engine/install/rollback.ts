// Rollback: the previous version of a namespace becomes the active one again, if its record and
// its files are still there. Call under the namespace lock.
// Invariants: nothing changes unless the namespace is installed (AIRLOCK_INSTALL_NOT_INSTALLED),
// has a previous version (AIRLOCK_INSTALL_NO_PREVIOUS) whose files are present
// (AIRLOCK_INSTALL_FILES_MISSING); activation and pruning go through records.ts like an install.
import type { InstallReport } from "../../contracts/host.ts";
import type { LifecycleContext } from "./context.ts";
import { installError } from "./errors.ts";
import { activateAndPrune, toolIds } from "./records.ts";

export async function rollbackUnlocked(ctx: LifecycleContext, namespace: string): Promise<InstallReport> {
  const { store } = ctx;
  const activation = await store.getActivation(namespace);
  if (activation === null)
    throw installError("AIRLOCK_INSTALL_NOT_INSTALLED", `no plugin is installed under "${namespace}"`);
  const target =
    activation.previous === null ? null : await store.getInstalledPlugin(namespace, activation.previous);
  if (target === null) {
    throw installError(
      "AIRLOCK_INSTALL_NO_PREVIOUS",
      `${namespace} has no previous version to roll back to`,
      { namespace },
    );
  }
  if (!ctx.filesPresent(target.path)) {
    throw installError(
      "AIRLOCK_INSTALL_FILES_MISSING",
      `${namespace}@${target.version} has no files at ${target.path}`,
    );
  }
  const after = await activateAndPrune(ctx, target);
  return {
    namespace,
    version: target.version,
    previous: after.previous,
    tools: toolIds(target),
    signer: target.signer,
  };
}
