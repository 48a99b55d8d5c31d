// Keys trusted for one namespace, kept in the store (`trusted_keys`) so every host on it trusts
// them: the key that verified what got installed — an operator's key for that install
// (`trustKeys`, the CLI's --trust-key) or one of the host's roots (`trust.keys`,
// `<data-dir>/trust/*.pub`) — is kept for the namespace, and every later install, upgrade or
// replica rebuild (packages.ts) of that namespace trusts it without the flag or the root.
// Invariants: only a key that verified a signature is kept; a kept key is trusted for its
// namespace only (the global roots stay the host's own configuration); an unknown signer is
// explained with the key(s) this namespace trusts and how to trust another. Keys an older host
// remembered as files under `<data-dir>/trust/namespaces/<namespace>/*.pub` are moved into the
// store by `importRememberedKeys` (each file removed once its key is stored).
import { existsSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { hasCode } from "@airlock/sdk/errors";
import { keyIdOf } from "@airlock/sdk/signing";
import type { Store } from "../../state/store/types.ts";
import { installError } from "./errors.ts";
import type { TrustConfig } from "./trust.ts";

/** The PEMs kept for `namespace` (none for a file install, whose namespace is not known yet). */
export async function namespaceKeys(store: Store, namespace: string | undefined): Promise<string[]> {
  if (namespace === undefined) return [];
  return (await store.listTrustedKeys(namespace)).map((k) => k.pem);
}

/** The trust config for one operation: the host's roots, the operator's keys for it, the namespace's. */
export async function trustFor(
  trust: TrustConfig,
  store: Store,
  namespace: string | undefined,
  operatorKeys: readonly string[] = [],
): Promise<TrustConfig> {
  return {
    ...trust,
    keys: [...(trust.keys ?? []), ...operatorKeys, ...(await namespaceKeys(store, namespace))],
  };
}

/** Keeps the key (`pem`) that verified `namespace`'s install for every host; a no-op when unsigned. */
export async function rememberSigner(
  store: Store,
  namespace: string,
  signer: string | null,
  pem: string | undefined,
): Promise<void> {
  if (signer === null || pem === undefined) return;
  await store.putTrustedKey({
    namespace,
    keyId: signer,
    pem: pem.endsWith("\n") ? pem : `${pem}\n`,
    addedAt: new Date().toISOString(),
  });
}

/** Moves the key files an older host kept in `<dataDir>/trust/namespaces/` into the store. */
export async function importRememberedKeys(store: Store, dataDir: string): Promise<number> {
  const root = join(dataDir, "trust", "namespaces");
  if (!existsSync(root)) return 0;
  let moved = 0;
  for (const namespace of readdirSync(root)) {
    const dir = join(root, namespace);
    for (const name of readdirSync(dir).filter((n) => n.endsWith(".pub"))) {
      const file = join(dir, name);
      const pem = readFileSync(file, "utf8");
      let keyId: string;
      try {
        keyId = keyIdOf(pem);
      } catch {
        continue; // not a key: it was never trusted, and the file stays for the operator to see
      }
      await rememberSigner(store, namespace, keyId, pem);
      rmSync(file);
      moved += 1;
    }
    if (readdirSync(dir).length === 0) rmSync(dir, { recursive: true });
  }
  return moved;
}

/** Rewrites AIRLOCK_INSTALL_UNKNOWN_SIGNER to name the keys `namespace` trusts and the fix. */
export async function explainUnknownSigner(
  error: unknown,
  store: Store,
  namespace: string | undefined,
): Promise<unknown> {
  if (!hasCode(error, "AIRLOCK_INSTALL_UNKNOWN_SIGNER") || namespace === undefined) return error;
  const trusted = (await store.listTrustedKeys(namespace)).map((k) => k.keyId);
  const signers = ((error as { details?: { keyids?: string[] } }).details?.keyids ?? []).join(", ");
  const was = trusted.length === 0 ? "no key is kept for it" : `it trusts ${trusted.join(", ")}`;
  return installError(
    "AIRLOCK_INSTALL_UNKNOWN_SIGNER",
    `${namespace}: this version is signed by ${signers}, and ${was}; if the publisher confirms ${signers} is theirs, ` +
      `pass its public key: --trust-key <file.pub>`,
    { keyids: signers === "" ? [] : signers.split(", "), namespace, trusted },
    error,
  );
}
