// The first-party bootstrap step of `airlock start` (a BootstrapStep, see cli/start-step.ts).
// beforeHost: a signing key for this data dir (trusted by the host about to open), a local
//   registry child process on a loopback port with its own data dir (`<data>/bootstrap/registry`),
//   pointed to by the host's registryUrl unless the operator named a registry.
// afterHost: each plugins/<name> is built, packed and signed (cached by source hash), published
//   to the local registry (unless that version is there), installed from it (unless that version
//   is active; an older active version is upgraded), then the `example` agent is set up.
// Invariants: idempotent across restarts; a failing plugin stops startup with its error code
//   (AIRLOCK_BOOTSTRAP_*), while a host shipped without plugins/ only notes it; the registry
//   child is stopped at shutdown.
import { join } from "node:path";
import semver from "semver";
import type { AirlockHost } from "../../../contracts/host.ts";
import type { BootstrapStep, RunningContext, StartContext } from "../start-step.ts";
import { bootstrapError } from "./errors.ts";
import { ensureExampleAgent } from "./example-agent.ts";
import { type FirstPartyPlugin, listFirstPartyPlugins } from "./first-party.ts";
import { packFirstParty } from "./package-cache.ts";
import { publishIfMissing } from "./publish.ts";
import { type LocalRegistry, startLocalRegistry } from "./registry-process.ts";
import { type BootstrapKey, loadOrCreateSigningKey } from "./signing-key.ts";

export const FIRST_PARTY_OWNER = "airlock";

export interface InstallOutcome {
  name: string;
  version: string;
  action: "installed" | "upgraded" | "kept";
  built: boolean;
  published: boolean;
}

async function installOne(
  host: AirlockHost,
  registry: LocalRegistry,
  key: BootstrapKey,
  plugin: FirstPartyPlugin,
  cacheDir: string,
): Promise<InstallOutcome> {
  const packed = await packFirstParty(plugin, key, cacheDir);
  const { namespace, version } = packed.manifest;
  const published = await publishIfMissing(registry.url, registry.token, packed);
  const active = (await host.plugins.list()).find((p) => p.namespace === namespace)?.active;
  const base = { name: namespace, version, built: !packed.cached, published };
  if (active === version) return { ...base, action: "kept" };
  try {
    if (active !== undefined && semver.gt(version, active)) {
      await host.plugins.upgrade(namespace, version);
      return { ...base, action: "upgraded" };
    }
    if (active !== undefined) return { ...base, action: "kept" };
    await host.plugins.install(`${namespace}@${version}`);
    return { ...base, action: "installed" };
  } catch (cause) {
    throw bootstrapError("AIRLOCK_BOOTSTRAP_PLUGIN_FAILED", `installing ${namespace}@${version} failed`, {
      cause,
      details: { plugin: namespace, step: "install" },
    });
  }
}

/** Installs every first-party plugin into a running host from `registry`; idempotent. */
export async function installFirstParty(
  host: AirlockHost,
  registry: LocalRegistry,
  key: BootstrapKey,
  bootstrapDir: string,
  pluginsRoot?: string,
): Promise<InstallOutcome[]> {
  const plugins = await listFirstPartyPlugins(pluginsRoot);
  if (plugins.length === 0)
    throw bootstrapError("AIRLOCK_BOOTSTRAP_NO_PLUGINS", "no first-party plugin found");
  const out: InstallOutcome[] = [];
  for (const plugin of plugins)
    out.push(await installOne(host, registry, key, plugin, join(bootstrapDir, "cache")));
  return out;
}

interface StepState {
  key: BootstrapKey;
  registry: LocalRegistry;
  dir: string;
}

/** The step; one instance per `airlock start` (it keeps the registry between its two phases). */
export function createFirstPartyStep(): BootstrapStep {
  let state: StepState | undefined;
  return {
    name: "first-party-plugins",
    async beforeHost(ctx: StartContext) {
      if (ctx.hostOptions.registryUrl !== undefined) {
        ctx.notes.push({
          label: "First-party plugins",
          value: `not installed (--registry ${ctx.hostOptions.registryUrl} is in use)`,
        });
        return;
      }
      const dir = join(ctx.dataDir, "bootstrap");
      const key = await loadOrCreateSigningKey(dir);
      const registry = await startLocalRegistry({ dir, owner: FIRST_PARTY_OWNER });
      ctx.onShutdown(() => registry.close());
      const trust = ctx.hostOptions.trust ?? {};
      ctx.hostOptions.trust = { ...trust, keys: [...(trust.keys ?? []), key.publicKeyPem] };
      ctx.hostOptions.registryUrl = registry.url;
      state = { key, registry, dir };
    },
    async afterHost(ctx: RunningContext) {
      if (state === undefined) return;
      const { key, registry, dir } = state;
      if ((await listFirstPartyPlugins()).length === 0) {
        ctx.notes.push({
          label: "First-party plugins",
          value: "none found next to this host (plugins/<name>/)",
        });
        return;
      }
      const outcomes = await installFirstParty(ctx.host, registry, key, dir);
      await ensureExampleAgent(ctx.host);
      for (const o of outcomes) if (o.action !== "kept") ctx.pluginChanges.set(o.name, o.action);
      // The banner lists every installed plugin and each agent's current level (commands/banner.ts).
      ctx.notes.push({ label: "Local registry", value: `${registry.url}  (signing key ${key.keyId})` });
    },
  };
}
