// The one path every install takes once it has tarball bytes, in this order:
//   integrity (vs what the registry announced) → signature decision → in-memory tarball read
//   and validation → name/version match → engine and SDK compatibility → per-tool grants within
//   the plugin's (usesBeyondPlugin, as the build) → [namespace lock]
//   source and signer continuity → versions only move forward (ordering.ts) → stage files → atomic rename → store record → activate.
// A signature refusal (unsigned, unknown signer) of bytes that are not a plugin tarball at all
// answers the tarball's error instead: what is wrong with the file comes before signatures.
// The same bytes (integrity) as the active version answer `alreadyActive` and change nothing.
// Invariants: nothing is written before the signature decision and the tarball read succeed;
// the previously active version stays active until `activatePlugin` (the last step), so an
// interrupted install leaves it in place and calls keep being served by it.
import { rmSync } from "node:fs";
import { confusableSkeleton, sameProvider, usesBeyondPlugin, usesProblemsText } from "@airlock/sdk";
import { hasCode } from "@airlock/sdk/errors";
import type { PluginManifest } from "@airlock/sdk/manifest";
import { type PluginTarball, readPluginTarball, sha512Integrity } from "@airlock/sdk/package";
import type { IntegritySignature } from "@airlock/sdk/signing";
import type { InstallReport } from "../../contracts/host.ts";
import type { InstalledPluginRecord } from "../../state/store/types.ts";
import { checkCompatibility } from "./compat.ts";
import type { LifecycleContext } from "./context.ts";
import { installError } from "./errors.ts";
import { commitStaged, recordedPath, removeVersionDir, stageFiles } from "./files.ts";
import { withNamespaceLock } from "./lock.ts";
import { explainUnknownSigner, rememberSigner, trustFor } from "./namespace-trust.ts";
import { checkVersionOrder } from "./ordering.ts";
import { keepPackage } from "./packages.ts";
import { activateAndPrune, toolIds } from "./records.ts";
import { decideSigner, loadTrustKeys, sourceAllowsUnsigned } from "./trust.ts";

export interface VerifiedInstallInput {
  bytes: Uint8Array;
  /** Stored on the record: `<registry>/<name>@<version>` or `file:<path>`. */
  source: string;
  /** Registry base URL, or `file:<path>`: what allowUnsigned and namespace continuity compare. */
  origin: string;
  signatures: readonly IntegritySignature[];
  allowUnsigned: boolean;
  /** See ordering.ts: a lower or same-precedence version only with allowDowngrade. */
  allowDowngrade: boolean;
  /** A registry range that named a prerelease, or the operator's allowPrerelease. */
  prereleaseAsked: boolean;
  /** What was resolved from a registry; absent for a file. */
  expected?: { name: string; version: string; integrity: string };
  /** Keys the operator trusts for this operation (namespace-trust.ts keeps the signer's in the store). */
  trustKeys?: readonly string[];
}

/** `file` for every local file, else the registry base URL. Plugins of one namespace share one. */
export function continuityKey(origin: string): string {
  return origin.startsWith("file:") ? "file" : origin.replace(/\/+$/, "");
}

export function originOfSource(source: string): string {
  if (source.startsWith("file:")) return source;
  const slash = source.lastIndexOf("/");
  return slash < 0 ? source : source.slice(0, slash);
}

async function verify(
  ctx: LifecycleContext,
  input: VerifiedInstallInput,
): Promise<{ tarball: PluginTarball; integrity: string; signer: string | null; signerPem?: string }> {
  const integrity = sha512Integrity(input.bytes);
  if (input.expected !== undefined && integrity !== input.expected.integrity) {
    throw installError(
      "AIRLOCK_INSTALL_INTEGRITY_MISMATCH",
      `the tarball from ${input.source} does not match the announced integrity`,
      {
        expected: input.expected.integrity,
        actual: integrity,
      },
    );
  }
  const namespace = input.expected?.name;
  let signer: string | null;
  const trusted = loadTrustKeys(await trustFor(ctx.trust, ctx.store, namespace, input.trustKeys));
  try {
    signer = decideSigner({
      integrity,
      signatures: input.signatures,
      trusted,
      allowUnsigned: input.allowUnsigned || sourceAllowsUnsigned(ctx.trust, input.origin),
      source: input.source,
    });
  } catch (error) {
    // A file that is not a plugin tarball at all is reported as that first: no signature
    // would make it installable. (Read in memory by the hardened reader; nothing is written.)
    if (hasCode(error, "AIRLOCK_INSTALL_UNSIGNED") || hasCode(error, "AIRLOCK_INSTALL_UNKNOWN_SIGNER")) {
      await readPluginTarball(input.bytes, ctx.limits);
    }
    throw await explainUnknownSigner(error, ctx.store, namespace);
  }
  const tarball = await readPluginTarball(input.bytes, ctx.limits);
  const { manifest } = tarball;
  if (
    input.expected !== undefined &&
    (manifest.namespace !== input.expected.name || manifest.version !== input.expected.version)
  ) {
    throw installError(
      "AIRLOCK_INSTALL_MISMATCH",
      `resolved ${input.expected.name}@${input.expected.version} but the tarball is ${manifest.namespace}@${manifest.version}`,
    );
  }
  checkCompatibility(manifest, ctx.hostVersion, ctx.supportedSdk);
  refuseUsesBeyondPlugin(manifest);
  const signerPem = signer === null ? undefined : trusted.get(signer);
  return { tarball, integrity, signer, ...(signerPem === undefined ? {} : { signerPem }) };
}

export async function installVerified(
  ctx: LifecycleContext,
  input: VerifiedInstallInput,
): Promise<InstallReport> {
  const { tarball, integrity, signer, signerPem } = await verify(ctx, input);
  const { namespace, version } = tarball.manifest;
  // Replicas sharing the store rebuild the files from these bytes (packages.ts): kept before the record.
  await keepPackage(ctx.store, input.bytes, integrity, input.signatures);
  return withNamespaceLock(ctx.dataDir, namespace, async () => {
    const installed = await ctx.store.listInstalledPlugins(namespace);
    const foreign = installed.find(
      (r) => continuityKey(originOfSource(r.source)) !== continuityKey(input.origin),
    );
    if (foreign !== undefined) {
      throw installError(
        "AIRLOCK_INSTALL_NAMESPACE_TAKEN",
        `namespace "${namespace}" is held by ${foreign.namespace}@${foreign.version} from ${foreign.source}; uninstall it first`,
        { namespace, holder: foreign.source },
      );
    }
    await refuseLookalike(ctx, namespace);
    await refuseProviderConflict(ctx, tarball.manifest);
    const activation = await ctx.store.getActivation(namespace);
    const active = installed.find((r) => r.version === activation?.active);
    // A signed plugin stays with its signer; an unsigned one (allowed by the operator) may move to a trusted signer.
    if (active !== undefined && active.signer !== null && active.signer !== signer) {
      throw installError(
        "AIRLOCK_INSTALL_SIGNER_CHANGED",
        `${namespace}@${active.version} is signed by ${active.signer ?? "nobody"}; ${version} by ${signer ?? "nobody"}. ` +
          "A plugin keeps its signer: if the publisher really moved to the new key, uninstall the plugin and install it again with --trust-key <new key.pub>",
        { namespace, installedSigner: active.signer, newSigner: signer },
      );
    }
    // The same bytes already active: say so and change nothing (no files, record, activation).
    if (active !== undefined && active.integrity === integrity && ctx.filesPresent(active.path)) {
      return { namespace, version, previous: null, tools: toolIds(active), signer, alreadyActive: true };
    }
    checkVersionOrder({
      namespace,
      version,
      active: active?.version ?? null,
      allowDowngrade: input.allowDowngrade,
      prereleaseAsked: input.prereleaseAsked,
    });
    const same = installed.find((r) => r.version === version);
    if (same !== undefined && same.integrity !== integrity) {
      throw installError(
        "AIRLOCK_INSTALL_VERSION_CONFLICT",
        `${namespace}@${version} is installed with different contents`,
        {
          namespace,
          version,
        },
      );
    }
    let record: InstalledPluginRecord;
    if (same !== undefined && ctx.filesPresent(same.path)) {
      record = same;
    } else {
      record = await writeAndRecord(ctx, tarball, {
        integrity,
        signer,
        source: input.source,
        replacing: same !== undefined,
      });
    }
    const after = await activateAndPrune(ctx, record);
    await rememberSigner(ctx.store, namespace, signer, signerPem);
    return { namespace, version, previous: after.previous, tools: toolIds(record), signer };
  });
}

/**
 * The build's check of per-tool grants, again: a tarball crafted by hand (or by an older or
 * patched SDK) cannot give a tool more than its plugin declares.
 */
function refuseUsesBeyondPlugin(manifest: PluginManifest): void {
  const problems = usesBeyondPlugin(manifest);
  if (problems.length === 0) return;
  throw installError(
    "AIRLOCK_INSTALL_USES_EXCEEDED",
    `${manifest.namespace}@${manifest.version}: ${usesProblemsText(problems)}`,
    { problems },
  );
}

/**
 * A namespace that folds to the same confusable skeleton as another installed one (`pay-rnents`
 * next to `payments`, `wa1let` next to `wallet`) is refused: an operator enabling tools by name
 * would take one for the other. The registry refuses these at publish; a file install is here.
 */
async function refuseLookalike(ctx: LifecycleContext, namespace: string): Promise<void> {
  const skeleton = confusableSkeleton(namespace);
  const twin = (await ctx.store.listActivations()).find(
    (a) => a.namespace !== namespace && confusableSkeleton(a.namespace) === skeleton,
  );
  if (twin !== undefined) {
    throw installError(
      "AIRLOCK_INSTALL_NAMESPACE_LOOKALIKE",
      `namespace "${namespace}" looks like the installed "${twin.namespace}" (same skeleton "${skeleton}")`,
      { namespace, installed: twin.namespace },
    );
  }
}

/**
 * An OAuth provider name is one provider on this host: its tokens are kept per (agent,
 * provider), so a second plugin may declare it only exactly as the installed ones do (same
 * endpoints, scopes and API hosts); otherwise it could be handed a token granted for another
 * plugin's endpoints, or send one to hosts the first never declared.
 */
async function refuseProviderConflict(ctx: LifecycleContext, manifest: PluginManifest): Promise<void> {
  const mine = manifest.oauth ?? [];
  if (mine.length === 0) return;
  for (const activation of await ctx.store.listActivations()) {
    if (activation.namespace === manifest.namespace) continue;
    const other = await ctx.store.getInstalledPlugin(activation.namespace, activation.active);
    for (const theirs of other?.manifest.oauth ?? []) {
      const ours = mine.find((p) => p.name === theirs.name);
      if (ours !== undefined && !sameProvider(ours, theirs)) {
        throw installError(
          "AIRLOCK_INSTALL_OAUTH_PROVIDER_CONFLICT",
          `OAuth provider "${ours.name}" is declared differently by the installed plugin ${activation.namespace} (endpoints, scopes or API hosts differ); one provider name is one provider on this host`,
          { provider: ours.name, installed: activation.namespace },
        );
      }
    }
  }
}

/** Stage → rename → record. On a failure (not a crash) it removes what it wrote before rethrowing. */
async function writeAndRecord(
  ctx: LifecycleContext,
  tarball: PluginTarball,
  meta: { integrity: string; signer: string | null; source: string; replacing: boolean },
): Promise<InstalledPluginRecord> {
  const { namespace, version } = tarball.manifest;
  const staged = stageFiles(ctx.dataDir, namespace, version, tarball.files);
  let path: string | undefined;
  try {
    await ctx.faults?.afterStaged?.(staged);
    path = commitStaged(staged, ctx.dataDir, namespace, version);
    await ctx.faults?.afterCommitted?.(path);
    const record: InstalledPluginRecord = {
      namespace,
      version,
      manifest: tarball.manifest,
      integrity: meta.integrity,
      signer: meta.signer,
      source: meta.source,
      path: recordedPath(namespace, version),
      installedAt: new Date().toISOString(),
    };
    await ctx.store.putInstalledPlugin(record);
    return record;
  } catch (err) {
    rmSync(staged, { recursive: true, force: true });
    if (path !== undefined && !meta.replacing) removeVersionDir(ctx.dataDir, namespace, version);
    throw err;
  }
}
