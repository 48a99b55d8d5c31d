// Trust roots and the signature decision, taken before anything of a package is parsed or
// written. Contract: `loadTrust(config)` reads PEM keys (inline and `<dir>/*.pub`) into a
// keyid → PEM map; `decideSigner(...)` returns the verified signer's key id, or null when the
// package is unsigned / signed only by unknown keys AND the operator allowed that source, and
// throws otherwise. A signature that claims a trusted key id but does not verify is always
// refused (tampering), whatever is allowed.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { type IntegritySignature, keyIdOf, verifyIntegritySignature } from "@airlock/sdk/signing";
import { installError } from "./errors.ts";

export interface TrustConfig {
  /** Ed25519 public keys (SPKI PEM) whose signatures are accepted. */
  keys?: readonly string[];
  /** A directory of `*.pub` PEM files, read on each decision (so a new key needs no restart). */
  keysDir?: string;
  /**
   * Sources from which an unsigned package or an unknown signer is accepted: a registry base URL
   * (`http://127.0.0.1:4873`), `file` for every local .tgz, or `file:<absolute path>`.
   */
  allowUnsigned?: readonly string[];
}

export function loadTrustKeys(config: TrustConfig): Map<string, string> {
  const pems = [...(config.keys ?? [])];
  if (config.keysDir !== undefined) {
    let names: string[] = [];
    try {
      names = readdirSync(config.keysDir).filter((n) => n.endsWith(".pub"));
    } catch (err) {
      if ((err as { code?: string }).code !== "ENOENT") {
        throw installError(
          "AIRLOCK_INSTALL_TRUST_INVALID",
          `cannot read trust directory ${config.keysDir}`,
          undefined,
          err,
        );
      }
    }
    for (const name of names.sort()) pems.push(readFileSync(join(config.keysDir, name), "utf8"));
  }
  const keys = new Map<string, string>();
  for (const pem of pems) {
    try {
      keys.set(keyIdOf(pem), pem);
    } catch (err) {
      throw installError(
        "AIRLOCK_INSTALL_TRUST_INVALID",
        "a trust root is not an ed25519 public key PEM",
        undefined,
        err,
      );
    }
  }
  return keys;
}

/** True when `origin` (a registry base URL or `file:<path>`) is listed in allowUnsigned. */
export function sourceAllowsUnsigned(config: TrustConfig, origin: string): boolean {
  const norm = (s: string): string => s.replace(/\/+$/, "");
  return (config.allowUnsigned ?? []).some(
    (allowed) => norm(allowed) === norm(origin) || (allowed === "file" && origin.startsWith("file:")),
  );
}

export function decideSigner(input: {
  integrity: string;
  signatures: readonly IntegritySignature[];
  trusted: ReadonlyMap<string, string>;
  allowUnsigned: boolean;
  source: string;
}): string | null {
  const { integrity, signatures, trusted } = input;
  for (const sig of signatures) {
    const pem = trusted.get(sig.keyid);
    if (pem === undefined) continue;
    if (!verifyIntegritySignature(integrity, sig, pem)) {
      throw installError(
        "AIRLOCK_INSTALL_SIGNATURE_INVALID",
        `the signature by trusted key ${sig.keyid} does not verify for ${input.source}; refusing a tampered package`,
        { keyid: sig.keyid },
      );
    }
    return sig.keyid;
  }
  if (input.allowUnsigned) return null;
  if (signatures.length === 0) {
    throw installError(
      "AIRLOCK_INSTALL_UNSIGNED",
      `${input.source} is not signed — allow unsigned packages from this source (--allow-unsigned) to install it`,
    );
  }
  throw installError(
    "AIRLOCK_INSTALL_UNKNOWN_SIGNER",
    `${input.source} is signed by ${signatures.map((s) => s.keyid).join(", ")}, none of them a trusted key — ` +
      "if that is your publisher's key, pass its public key: --trust-key <file.pub>",
    { keyids: signatures.map((s) => s.keyid) },
  );
}
