// Entry point of secrets at rest: the vault (AES-256-GCM under the master key), the secret
// source the secrets capability reads through, the writer the admin surfaces use, and masking.
export { SECRETS_ERRORS } from "./errors.ts";
export { isSensitive, MASK, maskSecret, presentSecret, secretSensitivity } from "./mask.ts";
export { loadMasterKey, MASTER_KEY_FILE, type MasterKeySource } from "./master-key.ts";
export {
  createSecretSource,
  createSecretWriter,
  readSecretViews,
  type SecretSource,
  type SecretWriter,
  specView,
} from "./source.ts";
export { createVault, keyIdOf, MAX_SECRET_BYTES, openVault, type Vault } from "./vault.ts";
