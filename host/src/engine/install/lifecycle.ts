// `createPluginLifecycle(options)`: install, upgrade, rollback, uninstall and list, as the
// PluginLifecycle of contracts/host.ts (the library API, the admin API and the CLI all call it),
// with the registry browser the console reads (registry-browser.ts).
// Invariants: the first operation first recovers from a crash (dead staging removed, version
// directories the store does not know removed, each namespace under its lock); every change
// to a namespace runs under its lock; see install-verified.ts for the install order.
import { existsSync, readFileSync } from "node:fs";
import { isAbsolute, join, resolve } from "node:path";
import type { IntegritySignature } from "@airlock/sdk/signing";
import type {
  InstalledPluginView,
  InstallOptions,
  InstallReport,
  PluginLifecycle,
} from "../../contracts/host.ts";
import { pickVersion } from "./compat.ts";
import type { LifecycleContext, PluginLifecycleOptions } from "./context.ts";
import { installError } from "./errors.ts";
import { namespaceDirs, removeDeadStaging, removeOrphanVersions } from "./files.ts";
import { installVerified, originOfSource } from "./install-verified.ts";
import { withNamespaceLock } from "./lock.ts";
import { rangeNamesPrerelease } from "./ordering.ts";
import { activateAndPrune, toolIds } from "./records.ts";
import { createRegistryBrowser } from "./registry-browser.ts";
import { fetchPackument, fetchTarball } from "./registry-client.ts";
import { uninstallUnlocked } from "./uninstall.ts";

export interface RecoveryReport {
  removed: string[];
}

export interface ManagedPluginLifecycle extends PluginLifecycle {
  /** Crash cleanup; runs once automatically before the first operation. */
  recover(): Promise<RecoveryReport>;
}

const NAME_RANGE = /^([a-z][a-z0-9-]{1,31})(?:@(.*))?$/;

function parseNameRange(text: string): { name: string; range: string } {
  const m = NAME_RANGE.exec(text);
  if (m === null) {
    throw installError("AIRLOCK_INSTALL_SPEC_INVALID", `"${text}" is not name@range (e.g. weather@^1.2.0)`, {
      spec: text,
    });
  }
  return { name: m[1] as string, range: (m[2] ?? "").trim() };
}

function readSidecarSignatures(path: string): IntegritySignature[] {
  const file = `${path}.sig`;
  if (!existsSync(file)) return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, "utf8"));
  } catch (err) {
    throw installError(
      "AIRLOCK_INSTALL_FILE_UNREADABLE",
      `${file} is not a JSON signature ({"keyid","sig"})`,
      { file },
      err,
    );
  }
  const list = Array.isArray(parsed) ? parsed : [parsed];
  return list.filter(
    (s): s is IntegritySignature =>
      typeof s === "object" && s !== null && typeof s.keyid === "string" && typeof s.sig === "string",
  );
}

/** A file or tarball names no range: a prerelease in it is asked for only by allowPrerelease. */
function fileOrdering(opts: InstallOptions) {
  return {
    allowUnsigned: opts.allowUnsigned === true,
    allowDowngrade: opts.allowDowngrade === true,
    prereleaseAsked: opts.allowPrerelease === true,
  };
}

export function createPluginLifecycle(options: PluginLifecycleOptions): ManagedPluginLifecycle {
  const ctx: LifecycleContext = {
    ...options,
    dataDir: resolve(options.dataDir),
    limits: options.limits ?? {},
    cwd: options.cwd ?? process.cwd(),
    filesPresent: (path) =>
      ["airlock.json", "index.js", "package.json"].every((f) => existsSync(join(path, f))),
  };
  const { store } = ctx;

  const recover = async (): Promise<RecoveryReport> => {
    const removed = removeDeadStaging(ctx.dataDir);
    for (const namespace of namespaceDirs(ctx.dataDir)) {
      await withNamespaceLock(ctx.dataDir, namespace, async () => {
        const known = new Set((await store.listInstalledPlugins(namespace)).map((r) => r.version));
        removed.push(...removeOrphanVersions(ctx.dataDir, namespace, known));
      });
    }
    return { removed };
  };
  let recovered: Promise<RecoveryReport> | undefined;
  const ready = (): Promise<RecoveryReport> => {
    // A failed recovery (e.g. a lock held too long) is retried by the next operation.
    recovered ??= recover().catch((err: unknown) => {
      recovered = undefined;
      throw err;
    });
    return recovered;
  };

  const installFromRegistry = async (
    base: string,
    name: string,
    range: string,
    opts: InstallOptions,
  ): Promise<InstallReport> => {
    const packument = await fetchPackument(base, name);
    const version = pickVersion(name, [...packument.versions.keys()], range, packument.latest);
    const dist = packument.versions.get(version);
    if (dist === undefined)
      throw installError("AIRLOCK_INSTALL_REGISTRY_ERROR", `${name}@${version} has no dist`);
    const bytes = await fetchTarball(dist.tarball, ctx.limits.maxCompressedBytes ?? 8 * 1024 * 1024);
    return installVerified(ctx, {
      bytes,
      source: `${base.replace(/\/+$/, "")}/${name}@${version}`,
      origin: base.replace(/\/+$/, ""),
      signatures: dist.signatures,
      allowUnsigned: opts.allowUnsigned === true,
      allowDowngrade: opts.allowDowngrade === true,
      prereleaseAsked: opts.allowPrerelease === true || rangeNamesPrerelease(range),
      ...(opts.trustKeys === undefined ? {} : { trustKeys: opts.trustKeys }),
      expected: { name, version, integrity: dist.integrity },
    });
  };

  const lifecycle: ManagedPluginLifecycle = {
    recover: ready,
    registryUrl: ctx.registryUrl ?? null,
    registry: createRegistryBrowser({ registryUrl: ctx.registryUrl, store }),

    async install(spec, opts = {}) {
      await ready();
      if (/^https?:\/\//.test(spec)) {
        const slash = spec.lastIndexOf("/");
        const { name, range } = parseNameRange(spec.slice(slash + 1));
        return installFromRegistry(spec.slice(0, slash), name, range, opts);
      }
      if (spec.startsWith("file:") || spec.endsWith(".tgz") || /^\.{0,2}\//.test(spec)) {
        const raw = spec.startsWith("file:") ? spec.slice(5) : spec;
        const path = isAbsolute(raw) ? raw : resolve(ctx.cwd, raw);
        let bytes: Uint8Array;
        try {
          bytes = new Uint8Array(readFileSync(path));
        } catch (err) {
          throw installError("AIRLOCK_INSTALL_FILE_UNREADABLE", `cannot read ${path}`, { path }, err);
        }
        return installVerified(ctx, {
          bytes,
          source: `file:${path}`,
          origin: `file:${path}`,
          signatures: readSidecarSignatures(path),
          ...fileOrdering(opts),
          ...(opts.trustKeys === undefined ? {} : { trustKeys: opts.trustKeys }),
        });
      }
      const { name, range } = parseNameRange(spec);
      if (ctx.registryUrl === undefined) {
        throw installError("AIRLOCK_INSTALL_NO_REGISTRY", `"${spec}" needs a registry; none is configured`);
      }
      return installFromRegistry(ctx.registryUrl, name, range, opts);
    },

    async installTarball(bytes, source, opts = {}) {
      await ready();
      const origin = source.startsWith("file:") ? source : `file:${source}`;
      return installVerified(ctx, {
        bytes,
        source: origin,
        origin,
        signatures: opts.signatures ?? [],
        ...fileOrdering(opts),
        ...(opts.trustKeys === undefined ? {} : { trustKeys: opts.trustKeys }),
      });
    },

    async upgrade(namespace, range = "", opts = {}) {
      await ready();
      const activation = await store.getActivation(namespace);
      const active =
        activation === null ? null : await store.getInstalledPlugin(namespace, activation.active);
      if (active === null)
        throw installError("AIRLOCK_INSTALL_NOT_INSTALLED", `no plugin is installed under "${namespace}"`);
      if (active.source.startsWith("file:")) {
        throw installError(
          "AIRLOCK_INSTALL_UPGRADE_NEEDS_REGISTRY",
          `${namespace} was installed from ${active.source}`,
        );
      }
      return installFromRegistry(originOfSource(active.source), namespace, range, opts);
    },

    async rollback(namespace) {
      await ready();
      return withNamespaceLock(ctx.dataDir, namespace, async () => {
        const activation = await store.getActivation(namespace);
        if (activation === null)
          throw installError("AIRLOCK_INSTALL_NOT_INSTALLED", `no plugin is installed under "${namespace}"`);
        const target =
          activation.previous === null
            ? null
            : await store.getInstalledPlugin(namespace, activation.previous);
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
      });
    },

    async uninstall(namespace, opts = {}) {
      await ready();
      return withNamespaceLock(ctx.dataDir, namespace, () =>
        uninstallUnlocked(ctx, namespace, opts.purge === true),
      );
    },

    async list(): Promise<InstalledPluginView[]> {
      await ready();
      const views: InstalledPluginView[] = [];
      for (const activation of await store.listActivations()) {
        const records = await store.listInstalledPlugins(activation.namespace);
        const active = records.find((r) => r.version === activation.active);
        if (active === undefined) continue;
        views.push({
          namespace: activation.namespace,
          active: activation.active,
          previous: activation.previous,
          versions: records.map((r) => r.version),
          tools: toolIds(active),
          signer: active.signer,
          source: active.source,
        });
      }
      return views;
    },
  };
  return lifecycle;
}
