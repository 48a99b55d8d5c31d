// Plugin packages shared by replicas (PostgreSQL store): the installer keeps the verified
// tarball in the store, keyed by its sha512 integrity, before it records the installed version;
// a replica that lacks a version's files rebuilds them from those bytes in its own data
// directory, checking everything again on its own side: the tarball's integrity against the
// record, the signature against ITS trust keys and the keys the store keeps for the namespace
// (namespace-trust.ts; a signed record must verify with the same
// signer; an unsigned record was the installing operator's explicit decision and stays
// unsigned), and the tarball's manifest and bundle against the record.
// Invariants: bytes that fail any check are never written; files are written only through the
// installer's staging + atomic rename (files.ts); on a store without `cluster` (SQLite, one
// host) nothing here runs and the files are where the installer put them.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { AirlockError } from "@airlock/sdk";
import { BUNDLE_FILE } from "@airlock/sdk/manifest";
import { readPluginTarball, sha512Integrity } from "@airlock/sdk/package";
import type { IntegritySignature } from "@airlock/sdk/signing";
import type { InstalledPluginRecord, Store } from "../../state/store/types.ts";
import { installError } from "./errors.ts";
import { commitStaged, pluginDirOf, stageFiles, versionDir } from "./files.ts";
import { withNamespaceLock } from "./lock.ts";
import { trustFor } from "./namespace-trust.ts";
import { decideSigner, loadTrustKeys, type TrustConfig } from "./trust.ts";

/** Keeps a verified tarball in the shared store (a no-op without one, or when already kept). */
export async function keepPackage(
  store: Store,
  bytes: Uint8Array,
  integrity: string,
  signatures: readonly IntegritySignature[],
): Promise<void> {
  await store.cluster?.putPluginPackage({ integrity, bytes, signatures: signatures.map((s) => ({ ...s })) });
}

export interface PackageSource {
  store: Store;
  dataDir: string;
  trust: TrustConfig;
}

/**
 * The directory holding this version's files on this replica: without a shared store, the
 * recorded folder in this data directory (files.ts `pluginDirOf`); with one, this data
 * directory's copy, rebuilt from the store when missing.
 */
export async function localPluginDir(source: PackageSource, record: InstalledPluginRecord): Promise<string> {
  if (source.store.cluster === undefined) return pluginDirOf(source.dataDir, record.path);
  const own = versionDir(source.dataDir, record.namespace, record.version);
  if (existsSync(join(own, BUNDLE_FILE))) return own;
  return withNamespaceLock(source.dataDir, record.namespace, async () => {
    if (existsSync(join(own, BUNDLE_FILE))) return own;
    await materialize(source, record);
    return own;
  });
}

async function materialize(source: PackageSource, record: InstalledPluginRecord): Promise<void> {
  const key = `${record.namespace}@${record.version}`;
  const pkg = await source.store.cluster?.getPluginPackage(record.integrity);
  if (pkg === null || pkg === undefined) {
    throw new AirlockError(
      "AIRLOCK_PLUGIN_BUNDLE_UNREADABLE",
      `the package of ${key} is neither on this replica nor in the shared store; reinstall the plugin`,
      { status: 500 },
    );
  }
  const integrity = sha512Integrity(pkg.bytes);
  if (integrity !== record.integrity) {
    throw installError(
      "AIRLOCK_INSTALL_INTEGRITY_MISMATCH",
      `the stored package of ${key} does not match its record`,
      {
        expected: record.integrity,
        actual: integrity,
      },
    );
  }
  const signer = decideSigner({
    integrity,
    signatures: pkg.signatures,
    trusted: loadTrustKeys(await trustFor(source.trust, source.store, record.namespace)),
    allowUnsigned: record.signer === null,
    source: record.source,
  });
  if (signer !== record.signer) {
    throw installError(
      "AIRLOCK_INSTALL_SIGNER_CHANGED",
      `${key} was installed as signed by ${record.signer ?? "nobody"}; this replica verifies ${signer ?? "no signer"}`,
      { namespace: record.namespace, installedSigner: record.signer, newSigner: signer },
    );
  }
  const tarball = await readPluginTarball(pkg.bytes);
  const { manifest } = tarball;
  if (
    manifest.namespace !== record.namespace ||
    manifest.version !== record.version ||
    manifest.bundle.integrity !== record.manifest.bundle.integrity
  ) {
    throw installError(
      "AIRLOCK_INSTALL_MISMATCH",
      `the stored package of ${key} holds ${manifest.namespace}@${manifest.version}`,
    );
  }
  const staged = stageFiles(source.dataDir, record.namespace, record.version, tarball.files);
  commitStaged(staged, source.dataDir, record.namespace, record.version);
}
