// Ed25519 signing of plugin integrity strings, shared by `airlock-plugin keygen/publish`, the
// registry (verifying uploads) and the host (verifying what it installs).
// Contract: what is signed is the UTF-8 bytes of the SRI integrity string (`sha512-<base64>`),
// never the tarball itself, so a verifier needs only the manifest's integrity and the public key.
// Key ids are `SHA256:<unpadded base64 of sha256(SPKI DER)>` (the OpenSSH fingerprint style).
// Uses node:crypto: NOT re-exported from index.ts (which is bundled into plugins).
import {
  createHash,
  createPrivateKey,
  createPublicKey,
  sign as cryptoSign,
  verify as cryptoVerify,
  generateKeyPairSync,
  type KeyObject,
} from "node:crypto";
import { sdkError } from "./error-codes.ts";

export interface KeyPair {
  /** PKCS#8 PEM. Keep it secret (the CLI writes it with mode 0600). */
  privateKeyPem: string;
  /** SPKI PEM. */
  publicKeyPem: string;
}

export interface IntegritySignature {
  keyid: string;
  /** Base64 Ed25519 signature of the integrity string's UTF-8 bytes. */
  sig: string;
}

export function generateKeyPair(): KeyPair {
  const { privateKey, publicKey } = generateKeyPairSync("ed25519");
  return {
    privateKeyPem: privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
    publicKeyPem: publicKey.export({ type: "spki", format: "pem" }).toString(),
  };
}

function publicKeyOf(pem: string): KeyObject {
  let key: KeyObject;
  try {
    key = createPublicKey(pem);
  } catch (err) {
    throw sdkError("AIRLOCK_SDK_KEY_INVALID", "not a PEM ed25519 public key", { cause: err });
  }
  if (key.asymmetricKeyType !== "ed25519") {
    throw sdkError("AIRLOCK_SDK_KEY_INVALID", `expected an ed25519 public key, got ${key.asymmetricKeyType}`);
  }
  return key;
}

function privateKeyOf(pem: string): KeyObject {
  let key: KeyObject;
  try {
    key = createPrivateKey(pem);
  } catch (err) {
    throw sdkError("AIRLOCK_SDK_KEY_INVALID", "not a PEM (PKCS#8) ed25519 private key", { cause: err });
  }
  if (key.asymmetricKeyType !== "ed25519") {
    throw sdkError(
      "AIRLOCK_SDK_KEY_INVALID",
      `expected an ed25519 private key, got ${key.asymmetricKeyType}`,
    );
  }
  return key;
}

/** `SHA256:<unpadded base64 of sha256(SPKI DER)>` of a public key (a private key PEM also works). */
export function keyIdOf(publicKeyPem: string): string {
  const key = publicKeyPem.includes("PRIVATE KEY")
    ? createPublicKey(privateKeyOf(publicKeyPem))
    : publicKeyOf(publicKeyPem);
  const der = key.export({ type: "spki", format: "der" });
  return `SHA256:${createHash("sha256").update(der).digest("base64").replace(/=+$/, "")}`;
}

/** The SRI sha512 integrity of some bytes: `sha512-<base64>`. */
export function integrityOf(bytes: Uint8Array): string {
  return `sha512-${createHash("sha512").update(bytes).digest("base64")}`;
}

/** Signs an integrity string with an ed25519 private key; the key id is derived from the key. */
export function signIntegrity(integrity: string, privateKeyPem: string): IntegritySignature {
  const key = privateKeyOf(privateKeyPem);
  const sig = cryptoSign(null, Buffer.from(integrity, "utf8"), key).toString("base64");
  const keyid = keyIdOf(createPublicKey(key).export({ type: "spki", format: "pem" }).toString());
  return { keyid, sig };
}

/**
 * True when `signature` is a valid signature of `integrity` by `publicKeyPem` AND its keyid is
 * that key's id. A malformed key throws AIRLOCK_SDK_KEY_INVALID; a malformed signature is `false`.
 */
export function verifyIntegritySignature(
  integrity: string,
  signature: IntegritySignature,
  publicKeyPem: string,
): boolean {
  const key = publicKeyOf(publicKeyPem);
  if (signature.keyid !== keyIdOf(publicKeyPem)) return false;
  if (typeof signature.sig !== "string" || !/^[A-Za-z0-9+/]+={0,2}$/.test(signature.sig)) return false;
  const sig = Buffer.from(signature.sig, "base64");
  if (sig.length !== 64) return false; // an ed25519 signature is 64 bytes; anything else cannot verify
  return cryptoVerify(null, Buffer.from(integrity, "utf8"), key, sig);
}
