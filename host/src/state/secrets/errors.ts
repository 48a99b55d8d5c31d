// Error catalogue of secrets at rest (master key handling, encryption, decryption).
// Invariants: messages name files, key ids and reasons, never a key or a secret value.
import { AirlockError, defineErrorCodes } from "@airlock/sdk";

export const SECRETS_ERRORS = defineErrorCodes({
  AIRLOCK_SECRETS_NO_KEY: {
    status: 500,
    description:
      "No master key: set AIRLOCK_MASTER_KEY or AIRLOCK_MASTER_KEY_FILE, or give the host a data dir.",
  },
  AIRLOCK_SECRETS_KEY_INVALID: {
    status: 500,
    description: "The master key is not 32 bytes of base64 (generate one with `openssl rand -base64 32`).",
  },
  AIRLOCK_SECRETS_KEY_FILE_PERMISSIONS: {
    status: 500,
    description: "The master key file is readable or writable by group or others; chmod 600 it.",
  },
  AIRLOCK_SECRETS_KEY_FILE_UNREADABLE: {
    status: 500,
    description: "The master key file could not be read or created.",
  },
  AIRLOCK_SECRETS_DECRYPT_FAILED: {
    status: 500,
    description:
      "A stored secret could not be decrypted: a different master key, or the ciphertext was altered.",
  },
  AIRLOCK_SECRETS_INVALID: {
    status: 400,
    description: "A secret value must be a string (at most 64 KiB).",
  },
});

export type SecretsErrorCode = keyof typeof SECRETS_ERRORS;

export function secretsError(
  code: SecretsErrorCode,
  message: string,
  options: { cause?: unknown; details?: Record<string, unknown> } = {},
): AirlockError {
  return new AirlockError(code, message, { ...options, status: SECRETS_ERRORS[code].status });
}
