// Secrets as the rest of the host reads and writes them: plaintext in, ciphertext in the store.
// `createSecretSource` is what the secrets capability uses (get → plaintext for the call);
// `createSecretWriter` is what the admin surfaces use (put/delete), and `readSecretViews`
// builds the masked read-back of an agent's secrets.
// Invariants: the store only ever sees vault ciphertext; views never carry a sensitive value.
import type { PluginManifest, SecretSpec } from "@airlock/sdk/manifest";
import type { SecretSpecView, SecretView } from "../../contracts/host.ts";
import type { Store } from "../store/types.ts";
import { isSensitive, maskSecret, secretSensitivity } from "./mask.ts";
import type { Vault } from "./vault.ts";

export interface SecretSource {
  /** The decrypted value, or undefined when unset. Rejects with AIRLOCK_SECRETS_DECRYPT_FAILED. */
  get(agent: string, key: string): Promise<string | undefined>;
}

export function createSecretSource(deps: { store: Store; vault: Vault }): SecretSource {
  return {
    async get(agent, key) {
      const record = await deps.store.getSecret(agent, key);
      return record === null ? undefined : deps.vault.decrypt(record.ciphertext);
    },
  };
}

export interface SecretWriter {
  put(agent: string, key: string, value: string): Promise<void>;
  delete(agent: string, key: string): Promise<boolean>;
}

export function createSecretWriter(deps: { store: Store; vault: Vault }): SecretWriter {
  return {
    async put(agent, key, value) {
      const ciphertext = deps.vault.encrypt(value);
      await deps.store.putSecret({ agent, key, ciphertext, updatedAt: new Date().toISOString() });
    },
    delete(agent, key) {
      return deps.store.deleteSecret(agent, key);
    },
  };
}

/** A declaration as a console asks for it (no `sensitive`: the view says that itself). */
export function specView(spec: SecretSpec): SecretSpecView {
  const view: SecretSpecView = { type: spec.type, optional: spec.optional };
  if (spec.label !== undefined) view.label = spec.label;
  if (spec.description !== undefined) view.description = spec.description;
  if (spec.choices !== undefined) view.choices = [...spec.choices];
  return view;
}

/**
 * Every key any installed tool declares, plus any key the agent has set, as read back through
 * an API: readable values in clear, sensitive ones masked, unset ones null.
 */
export async function readSecretViews(deps: {
  store: Store;
  vault: Vault;
  agent: string;
  manifests: readonly PluginManifest[];
}): Promise<SecretView[]> {
  const sensitivity = secretSensitivity(deps.manifests);
  const tools = new Map<string, string[]>();
  const specs = new Map<string, SecretSpecView>();
  for (const m of deps.manifests) {
    for (const t of m.tools) {
      for (const s of t.requiredSecrets) {
        tools.set(s.key, [...(tools.get(s.key) ?? []), `${m.namespace}:${t.name}`]);
        if (!specs.has(s.key)) specs.set(s.key, specView(s));
      }
    }
  }
  const stored = new Map((await deps.store.listSecrets(deps.agent)).map((r) => [r.key, r.ciphertext]));
  const keys = [...new Set([...tools.keys(), ...stored.keys()])].sort();
  return keys.map((key) => {
    const sensitive = isSensitive(sensitivity, key);
    const ciphertext = stored.get(key);
    const plain = ciphertext === undefined ? null : deps.vault.decrypt(ciphertext);
    return {
      key,
      set: plain !== null,
      sensitive,
      value: plain === null ? null : sensitive ? maskSecret(plain) : plain,
      tools: tools.get(key) ?? [],
      spec: specs.get(key) ?? null,
    };
  });
}
