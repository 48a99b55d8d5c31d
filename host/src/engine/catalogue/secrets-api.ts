// The per-agent secrets API: list (masked), set (validated against the declared specs),
// delete. Values are sealed and opened by a SecretCodec (the vault, host/src/state/secrets/), so the
// store only ever holds ciphertext.
// Invariants: a key can be set only when an active tool declares it; a select secret only to
// one of its choices; a batch is validated whole before anything is written; a sensitive
// value is never returned in clear (masked: "••••" plus at most its last 2 characters).
import { hasCode, providerSecretSpecs } from "@airlock/sdk";
import type { SecretSpec } from "@airlock/sdk/manifest";
import type { SecretView } from "../../contracts/host.ts";
import {
  isSensitive,
  MAX_SECRET_BYTES,
  maskSecret,
  secretSensitivity,
  specView,
  type Vault,
} from "../../state/secrets/index.ts";
import type { Store } from "../../state/store/types.ts";
import { catalogueError, requireAgent } from "./agent-tools.ts";
import type { Catalogue } from "./catalogue.ts";

/** What the secrets API needs of the vault. */
export type SecretCodec = Pick<Vault, "encrypt" | "decrypt">;

interface Declared {
  specs: SecretSpec[];
  tools: string[];
}

/** Every secret key active tools declare (harness tools included), with the declaring specs. */
export function declaredSecrets(catalogue: Catalogue): Map<string, Declared> {
  const map = new Map<string, Declared>();
  const entries = [...catalogue.tools(), ...catalogue.harnessGroups().flatMap((g) => catalogue.harness(g))];
  const add = (spec: SecretSpec, tool: string | null) => {
    const d = map.get(spec.key) ?? { specs: [], tools: [] };
    d.specs.push(spec);
    if (tool !== null && !d.tools.includes(tool)) d.tools.push(tool);
    map.set(spec.key, d);
  };
  for (const entry of entries) {
    for (const spec of entry.tool.requiredSecrets) add(spec, entry.id);
  }
  // A provider's client credentials are the operator's to set, for every tool of the plugin.
  for (const plugin of catalogue.plugins().values()) {
    const tools = plugin.manifest.tools.map((t) => `${plugin.manifest.namespace}:${t.name}`);
    for (const provider of plugin.manifest.oauth ?? []) {
      // A remote server behind OAuth has no tools pinned until an agent connects (remote/).
      for (const spec of providerSecretSpecs(provider)) {
        if (tools.length === 0) add(spec, null);
        for (const tool of tools) add(spec, tool);
      }
    }
  }
  return map;
}

/** The clear value, or null when the vault cannot open it (e.g. sealed under another master key). */
function readable(codec: SecretCodec, ciphertext: string): string | null {
  try {
    return codec.decrypt(ciphertext);
  } catch (error) {
    if (hasCode(error, "AIRLOCK_SECRETS_DECRYPT_FAILED")) return null;
    throw error;
  }
}

function activeManifests(catalogue: Catalogue) {
  return [...catalogue.plugins().values()].map((p) => p.manifest);
}

export async function listSecrets(
  store: Store,
  catalogue: Catalogue,
  codec: SecretCodec,
  agent: string,
): Promise<SecretView[]> {
  await requireAgent(store, agent);
  const declared = declaredSecrets(catalogue);
  const sensitivity = secretSensitivity(activeManifests(catalogue));
  const records = new Map((await store.listSecrets(agent)).map((r) => [r.key, r]));
  const keys = [...new Set([...declared.keys(), ...records.keys()])].sort();
  const views: SecretView[] = [];
  for (const key of keys) {
    const d = declared.get(key);
    const record = records.get(key);
    const sensitive = isSensitive(sensitivity, key);
    let value: string | null = null;
    if (record !== undefined) {
      const plain = readable(codec, record.ciphertext);
      value = plain === null ? null : sensitive ? maskSecret(plain) : plain;
    }
    views.push({
      key,
      set: record !== undefined,
      sensitive,
      value,
      tools: d?.tools ?? [],
      spec: d?.specs[0] === undefined ? null : specView(d.specs[0]),
    });
  }
  return views;
}

/**
 * Sets secrets for an agent. An empty string clears the key. Throws AIRLOCK_SECRET_UNKNOWN_KEY,
 * AIRLOCK_SECRET_INVALID_CHOICE or AIRLOCK_SECRET_INVALID_VALUE before writing anything.
 */
export async function setSecrets(
  store: Store,
  catalogue: Catalogue,
  codec: SecretCodec,
  agent: string,
  values: Record<string, string>,
): Promise<SecretView[]> {
  await requireAgent(store, agent);
  const declared = declaredSecrets(catalogue);
  const entries = Object.entries(values ?? {});
  for (const [key, value] of entries) {
    const d = declared.get(key);
    if (d === undefined) {
      throw catalogueError("AIRLOCK_SECRET_UNKNOWN_KEY", `no active tool declares a secret "${key}"`);
    }
    if (typeof value !== "string" || Buffer.byteLength(value, "utf8") > MAX_SECRET_BYTES) {
      throw catalogueError(
        "AIRLOCK_SECRET_INVALID_VALUE",
        `secret "${key}" must be a string of at most 64 KiB`,
      );
    }
    for (const spec of d.specs) {
      if (value !== "" && spec.type === "select" && !(spec.choices ?? []).includes(value)) {
        throw catalogueError(
          "AIRLOCK_SECRET_INVALID_CHOICE",
          `secret "${key}" must be one of: ${(spec.choices ?? []).join(", ")}`,
        );
      }
    }
  }
  for (const [key, value] of entries) {
    if (value === "") await store.deleteSecret(agent, key);
    else
      await store.putSecret({
        agent,
        key,
        ciphertext: codec.encrypt(value),
        updatedAt: new Date().toISOString(),
      });
  }
  return listSecrets(store, catalogue, codec, agent);
}

export async function deleteSecret(store: Store, agent: string, key: string): Promise<boolean> {
  await requireAgent(store, agent);
  return store.deleteSecret(agent, key);
}
