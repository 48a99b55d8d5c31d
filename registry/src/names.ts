// Package-name policy of the registry: shape, reserved namespaces, and look-alikes.
// Contract: `checkNewName(name, existing)` throws AIRLOCK_REGISTRY_NAME_* or returns; it runs
// only when a namespace is first claimed (existing names publish new versions freely).
// Look-alikes are refused in two ways: a name with any non-ASCII character (mixed scripts,
// Cyrillic 'а' in 'pаyments', fullwidth letters, zero-width characters) is refused outright
// with the offending code points named; an ASCII name whose confusable skeleton (1/l/i, 0/o,
// rn/m, vv/w, hyphens dropped) equals an existing name's skeleton is refused as a collision.
import { confusableSkeleton, NAMESPACE_PATTERN, RESERVED_NAMESPACES } from "@airlock/sdk";
import { registryError } from "./errors.ts";

const SCRIPT_NAMES: Array<[RegExp, string]> = [
  [/\p{Script=Latin}/u, "Latin"],
  [/\p{Script=Cyrillic}/u, "Cyrillic"],
  [/\p{Script=Greek}/u, "Greek"],
  [/\p{Script=Armenian}/u, "Armenian"],
  [/\p{Script=Cherokee}/u, "Cherokee"],
];

function scriptOf(ch: string): string {
  for (const [re, name] of SCRIPT_NAMES) if (re.test(ch)) return name;
  return /\p{L}/u.test(ch) ? "another script" : "a non-letter";
}

/** The skeleton lives in the SDK's names, so the host's installer folds names the same way. */
export { confusableSkeleton };

export function checkNewName(name: string, existing: readonly string[]): void {
  const foreign = [...name].filter((ch) => (ch.codePointAt(0) as number) > 0x7e);
  if (foreign.length > 0) {
    const listed = foreign
      .map(
        (ch) =>
          `U+${(ch.codePointAt(0) as number).toString(16).toUpperCase().padStart(4, "0")} (${scriptOf(ch)})`,
      )
      .join(", ");
    throw registryError(
      "AIRLOCK_REGISTRY_NAME_LOOKALIKE",
      `"${name}" contains characters outside a-z, 0-9 and "-": ${listed}; names that mix scripts or look like another name are refused`,
      { name, codePoints: foreign.map((ch) => ch.codePointAt(0)) },
    );
  }
  if (!NAMESPACE_PATTERN.test(name)) {
    throw registryError(
      "AIRLOCK_REGISTRY_NAME_INVALID",
      `"${name}" is not a valid namespace; expected ${NAMESPACE_PATTERN}`,
      {
        name,
      },
    );
  }
  const skeleton = confusableSkeleton(name);
  for (const reserved of RESERVED_NAMESPACES) {
    if (name === reserved || confusableSkeleton(reserved) === skeleton) {
      throw registryError(
        "AIRLOCK_REGISTRY_NAME_RESERVED",
        `"${name}" is (or looks like) the reserved namespace "${reserved}"`,
        {
          name,
          reserved,
        },
      );
    }
  }
  const twin = existing.find((other) => other !== name && confusableSkeleton(other) === skeleton);
  if (twin !== undefined) {
    throw registryError(
      "AIRLOCK_REGISTRY_NAME_LOOKALIKE",
      `"${name}" is too similar to the existing package "${twin}" (same skeleton "${skeleton}")`,
      { name, existing: twin },
    );
  }
}
