// Which secret keys are credentials, and how credentials are shown when read back.
// Rules (seed, Step 6): a text secret is sensitive by default; a select, or a field declared
// `sensitive: false`, is readable. A key that ANY tool declares sensitive is sensitive for all.
// A key no installed tool declares is treated as sensitive (fail closed).
// Invariant: a mask reveals at most the last 2 characters, and only of values long enough
// (≥ 12 chars) that 2 characters do not meaningfully narrow the value.
import { providerSecretSpecs } from "@airlock/sdk";
import type { PluginManifest, SecretSpec } from "@airlock/sdk/manifest";

export const MASK = "••••";
const REVEAL_MIN_LENGTH = 12;

export function maskSecret(value: string): string {
  if (value.length >= REVEAL_MIN_LENGTH) return `${MASK}${value.slice(-2)}`;
  return MASK;
}

/** Anything that lists tools with their declared secrets (a PluginManifest fits). */
export interface SecretDeclarer {
  tools: ReadonlyArray<{ requiredSecrets: readonly Pick<SecretSpec, "key" | "sensitive">[] }>;
}

/** key → sensitive, over every tool of every manifest given; sensitive wins over readable. */
export function secretSensitivity(
  manifests: Iterable<SecretDeclarer | PluginManifest>,
): Map<string, boolean> {
  const out = new Map<string, boolean>();
  for (const m of manifests) {
    for (const tool of m.tools) {
      for (const spec of tool.requiredSecrets) {
        out.set(spec.key, (out.get(spec.key) ?? false) || spec.sensitive !== false);
      }
    }
    for (const provider of ("oauth" in m ? m.oauth : undefined) ?? []) {
      for (const spec of providerSecretSpecs(provider))
        out.set(spec.key, (out.get(spec.key) ?? false) || spec.sensitive);
    }
  }
  return out;
}

/** Whether `key` is sensitive under `sensitivity`; unknown keys are. */
export function isSensitive(sensitivity: ReadonlyMap<string, boolean>, key: string): boolean {
  return sensitivity.get(key) ?? true;
}

/** The value as read back through an API: in clear when readable, masked when sensitive. */
export function presentSecret(sensitivity: ReadonlyMap<string, boolean>, key: string, value: string): string {
  return isSensitive(sensitivity, key) ? maskSecret(value) : value;
}
