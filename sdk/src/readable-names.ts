// The one rule for every name a person reads (artifact and document filenames, skill names, tool
// titles and labels, namespaces, tool names, agent slugs, secret keys): no character that is not
// shown as itself. Control characters (\p{Cc}), invisible format characters (\p{Cf}: the bidi
// overrides and isolates such as U+202E, which make "\u202Etxt.exe" read as "exe.txt", the zero-width
// joiners and spaces, the soft hyphen, the BOM), lone UTF-16 surrogates (\p{Cs}: not text) and
// the line and paragraph separators (\p{Zl}, \p{Zp}) are refused. Each caller throws its own coded
// error (AIRLOCK_ARTIFACT_INVALID, AIRLOCK_KNOWLEDGE_INVALID, AIRLOCK_SDK_SKILL_INVALID,
// AIRLOCK_MANIFEST_INVALID, ...); the ASCII-only name patterns of names.ts (namespace, tool name,
// secret key) and the host's agent slug hold the rule by construction, which names.test.ts checks.
// Pure: no node:* imports (bundled into plugins with the rest of the SDK).

/** One character no human-read name may hold. */
export const UNREADABLE_NAME_CHARACTER = /[\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}]/u;

/** The first character of `name` that a person would not see as itself, as `U+XXXX`, or null. */
export function unreadableCharacter(name: string): string | null {
  const found = UNREADABLE_NAME_CHARACTER.exec(name)?.[0];
  if (found === undefined) return null;
  return `U+${(found.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, "0")}`;
}

/** What a refusal says is accepted (one wording for every caller). */
export const READABLE_NAME_RULE =
  "no control, invisible format (bidi override, zero-width), lone surrogate or line separator characters";
