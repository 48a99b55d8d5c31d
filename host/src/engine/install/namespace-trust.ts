// Keys trusted for one namespace: the key an operator named for an install (`trustKeys`, the
// CLI's --trust-key) and that signed what got installed is remembered under
// `<data-dir>/trust/namespaces/<namespace>/<hex of the key id>.pub` (mode 0644, written
// atomically), and every later registry install or upgrade of that namespace trusts it without
// the flag. Invariants: only a key that verified a signature is remembered; a remembered key is
// trusted for its namespace only (the global roots stay `trust.keys` and `<data-dir>/trust/*.pub`);
// an unknown signer is explained with the key(s) this namespace trusts and how to trust another.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { mkdir, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { hasCode } from "@airlock/sdk/errors";
import { keyIdOf } from "@airlock/sdk/signing";
import { installError } from "./errors.ts";
import type { TrustConfig } from "./trust.ts";

export function namespaceTrustDir(dataDir: string, namespace: string): string {
  return join(dataDir, "trust", "namespaces", namespace);
}

/** The PEMs remembered for `namespace` (none for an unknown namespace or a file install). */
export function rememberedKeys(dataDir: string, namespace: string | undefined): string[] {
  if (namespace === undefined) return [];
  const dir = namespaceTrustDir(dataDir, namespace);
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((name) => name.endsWith(".pub"))
    .sort()
    .map((name) => readFileSync(join(dir, name), "utf8"));
}

/** The trust config for one operation: the host's roots, the operator's keys for it, the namespace's. */
export function trustFor(
  trust: TrustConfig,
  dataDir: string,
  namespace: string | undefined,
  operatorKeys: readonly string[] = [],
): TrustConfig {
  return { ...trust, keys: [...(trust.keys ?? []), ...operatorKeys, ...rememberedKeys(dataDir, namespace)] };
}

const fileNameOf = (keyId: string) =>
  `${Buffer.from(keyId.replace(/^SHA256:/, ""), "base64").toString("hex")}.pub`;

/** Remembers the operator key that signed `namespace`'s install; a no-op for any other signer. */
export async function rememberSigner(
  dataDir: string,
  namespace: string,
  signer: string | null,
  operatorKeys: readonly string[] = [],
): Promise<void> {
  if (signer === null) return;
  const pem = operatorKeys.find((key) => keyIdOf(key) === signer);
  if (pem === undefined) return;
  const dir = namespaceTrustDir(dataDir, namespace);
  await mkdir(dir, { recursive: true });
  const path = join(dir, fileNameOf(signer));
  const temp = `${path}.${process.pid}.tmp`;
  await writeFile(temp, pem.endsWith("\n") ? pem : `${pem}\n`, { mode: 0o644 });
  await rename(temp, path);
}

/** Rewrites AIRLOCK_INSTALL_UNKNOWN_SIGNER to name the keys `namespace` trusts and the fix. */
export function explainUnknownSigner(
  error: unknown,
  dataDir: string,
  namespace: string | undefined,
): unknown {
  if (!hasCode(error, "AIRLOCK_INSTALL_UNKNOWN_SIGNER") || namespace === undefined) return error;
  const trusted = rememberedKeys(dataDir, namespace).map((pem) => keyIdOf(pem));
  const signers = ((error as { details?: { keyids?: string[] } }).details?.keyids ?? []).join(", ");
  const was = trusted.length === 0 ? "no key is remembered for it" : `it trusts ${trusted.join(", ")}`;
  return installError(
    "AIRLOCK_INSTALL_UNKNOWN_SIGNER",
    `${namespace}: this version is signed by ${signers}, and ${was}; if the publisher confirms ${signers} is theirs, ` +
      `pass its public key: --trust-key <file.pub>`,
    { keyids: signers === "" ? [] : signers.split(", "), namespace, trusted },
    error,
  );
}
