// The vault: AES-256-GCM encryption of secret values under the host's master key.
// Ciphertext format (text, safe in any column): `av1.<keyId>.<nonce>.<sealed>` where nonce is a
// fresh random 12 bytes, sealed is ciphertext||16-byte tag, both base64url, and keyId is the
// first 16 hex chars of SHA-256 over a label and the key (identifies the key, reveals nothing).
// Invariants: a wrong key, a altered field or a foreign format fails with
// AIRLOCK_SECRETS_DECRYPT_FAILED and never returns garbage; plaintext and key never appear in
// an error message.
import {
  createCipheriv,
  createDecipheriv,
  createHash,
  createSecretKey,
  hkdfSync,
  randomBytes,
} from "node:crypto";
import { secretsError } from "./errors.ts";
import { KEY_BYTES, loadMasterKey } from "./master-key.ts";

const FORMAT = "av1";
const NONCE_BYTES = 12;
const TAG_BYTES = 16;
/** Largest secret value accepted (a long PEM key fits comfortably). */
export const MAX_SECRET_BYTES = 64 * 1024;

export interface Vault {
  /** Identifies the master key in use (not secret). */
  readonly keyId: string;
  encrypt(plaintext: string): string;
  decrypt(ciphertext: string): string;
  /**
   * A key for one host-internal purpose (HKDF-SHA256 of the master key, `purpose` as info), e.g.
   * the code cache MAC key. Deterministic per master key; reveals nothing about it or another
   * purpose's key. Never handed to plugin code.
   */
  deriveKey(purpose: string): Buffer;
}

export function keyIdOf(key: Buffer): string {
  return createHash("sha256").update("airlock master key id\0").update(key).digest("hex").slice(0, 16);
}

/** A vault over an explicit 32-byte key (tests, and callers that manage the key themselves). */
export function createVault(key: Buffer): Vault {
  if (key.length !== KEY_BYTES) {
    throw secretsError(
      "AIRLOCK_SECRETS_KEY_INVALID",
      `a master key has ${KEY_BYTES} bytes, got ${key.length}`,
    );
  }
  const keyCopy = Buffer.from(key);
  const keyId = keyIdOf(keyCopy);
  // made once: a Buffer key is turned into a key object on every cipher (≈ 20 µs of a 25 µs
  // decrypt on the 2-core dev VM, against ≈ 4 µs in all with this)
  const cipherKey = createSecretKey(keyCopy);
  return {
    keyId,
    deriveKey(purpose) {
      return Buffer.from(hkdfSync("sha256", keyCopy, "airlock host key", `airlock:${purpose}`, 32));
    },
    encrypt(plaintext) {
      if (typeof plaintext !== "string" || Buffer.byteLength(plaintext) > MAX_SECRET_BYTES) {
        throw secretsError(
          "AIRLOCK_SECRETS_INVALID",
          `a secret value is a string of at most ${MAX_SECRET_BYTES} bytes`,
        );
      }
      const nonce = randomBytes(NONCE_BYTES);
      const cipher = createCipheriv("aes-256-gcm", cipherKey, nonce);
      cipher.setAAD(Buffer.from(`${FORMAT}.${keyId}`));
      const sealed = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final(), cipher.getAuthTag()]);
      return `${FORMAT}.${keyId}.${nonce.toString("base64url")}.${sealed.toString("base64url")}`;
    },
    decrypt(ciphertext) {
      const parts = typeof ciphertext === "string" ? ciphertext.split(".") : [];
      const [format, id, nonceText, sealedText] = parts;
      if (parts.length !== 4 || format !== FORMAT || nonceText === undefined || sealedText === undefined) {
        throw secretsError(
          "AIRLOCK_SECRETS_DECRYPT_FAILED",
          "the stored secret is not in the vault's format",
        );
      }
      if (id !== keyId) {
        throw secretsError(
          "AIRLOCK_SECRETS_DECRYPT_FAILED",
          `the secret was encrypted under master key ${id}, this host has ${keyId}`,
          { details: { storedKeyId: id, hostKeyId: keyId } },
        );
      }
      const nonce = Buffer.from(nonceText, "base64url");
      const sealed = Buffer.from(sealedText, "base64url");
      if (nonce.length !== NONCE_BYTES || sealed.length < TAG_BYTES) {
        throw secretsError("AIRLOCK_SECRETS_DECRYPT_FAILED", "the stored secret is truncated");
      }
      // Base64url decoding skips stray characters and ignores a last character's spare bits, so
      // many texts decode to the same bytes. Only the text this vault wrote opens: a sealed value
      // (a session id, a ticket) is then one string, never an altered alias of it.
      if (nonce.toString("base64url") !== nonceText || sealed.toString("base64url") !== sealedText) {
        throw secretsError(
          "AIRLOCK_SECRETS_DECRYPT_FAILED",
          "the stored secret is not as the vault wrote it (altered)",
        );
      }
      try {
        const decipher = createDecipheriv("aes-256-gcm", cipherKey, nonce);
        decipher.setAAD(Buffer.from(`${FORMAT}.${keyId}`));
        decipher.setAuthTag(sealed.subarray(sealed.length - TAG_BYTES));
        return Buffer.concat([
          decipher.update(sealed.subarray(0, sealed.length - TAG_BYTES)),
          decipher.final(),
        ]).toString("utf8");
      } catch (err) {
        throw secretsError(
          "AIRLOCK_SECRETS_DECRYPT_FAILED",
          "the stored secret failed authentication (altered)",
          {
            cause: err,
          },
        );
      }
    },
  };
}

/** Opens the vault with the master key from the environment or the data dir (see master-key.ts). */
export function openVault(options: {
  dataDir?: string;
  env: Readonly<Record<string, string | undefined>>;
}): Vault {
  return createVault(loadMasterKey({ dataDir: options.dataDir, env: options.env }).key);
}
