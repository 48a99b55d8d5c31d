// Checks JSON text for what JSON.parse accepts silently but Airlock refuses: duplicate object
// keys (the last one would win, so two readers could see two documents), lone UTF-16
// surrogates (not Unicode text: they do not survive UTF-8), and the keys `__proto__`,
// `constructor` and `prototype` (which change or shadow an object's prototype in some readers).
// Pure functions over a string, no node:* imports (shared by the SDK, the registry and the host).
// Contract: each returns null for clean text; the text is assumed to be JSON that JSON.parse
// accepts (call it after parsing); they never throw and never quote a value, only keys and paths.

/** Keys refused in input: they reach an object's prototype machinery in common JS readers. */
export const FORBIDDEN_KEYS: readonly string[] = ["__proto__", "constructor", "prototype"];

/** The first key that appears twice in one object, with its JSON path, or null. */
export function duplicateKey(text: string): { path: string; key: string } | null {
  interface Frame {
    object: boolean;
    keys: Set<string>;
    path: string;
    expectKey: boolean;
    key: string;
    index: number;
  }
  const stack: Frame[] = [];
  const childPath = (f: Frame | undefined): string =>
    f === undefined ? "$" : f.object ? `${f.path}.${f.key}` : `${f.path}[${f.index}]`;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (ch === 0x22 /* " */) {
      let end = i + 1;
      while (end < text.length) {
        const c = text.charCodeAt(end);
        if (c === 0x5c /* \ */) end += 2;
        else if (c === 0x22) break;
        else end++;
      }
      const top = stack.at(-1);
      if (top?.object === true && top.expectKey) {
        const key = JSON.parse(text.slice(i, end + 1)) as string;
        if (top.keys.has(key)) return { path: top.path, key };
        top.keys.add(key);
        top.key = key;
        top.expectKey = false;
      }
      i = end;
    } else if (ch === 0x7b /* { */ || ch === 0x5b /* [ */) {
      const parent = stack.at(-1);
      stack.push({
        object: ch === 0x7b,
        keys: new Set(),
        path: childPath(parent),
        expectKey: ch === 0x7b,
        key: "",
        index: 0,
      });
    } else if (ch === 0x7d /* } */ || ch === 0x5d /* ] */) {
      stack.pop();
    } else if (ch === 0x2c /* , */) {
      const top = stack.at(-1);
      if (top?.object === true) top.expectKey = true;
      else if (top !== undefined) top.index++;
    }
  }
  return null;
}

// In JSON.stringify output (and in JSON text generally) a lone surrogate can only appear as a
// \uD800–\uDFFF escape not paired with its partner, or as the raw code unit itself. An escape
// counts only when the backslash before it is not itself escaped.
const SURROGATE_ESCAPE =
  /(?<!\\)((?:\\\\)*)\\u(d[89ab][0-9a-f]{2})(\\u(d[c-f][0-9a-f]{2}))?|(?<!\\)((?:\\\\)*)\\u(d[c-f][0-9a-f]{2})/gi;

/** True when the JSON text holds a lone surrogate (raw or escaped), in a key or a value. */
export function hasLoneSurrogate(text: string): boolean {
  if (!text.isWellFormed()) return true;
  if (!/\\u[dD]/.test(text)) return false;
  SURROGATE_ESCAPE.lastIndex = 0;
  for (let m = SURROGATE_ESCAPE.exec(text); m !== null; m = SURROGATE_ESCAPE.exec(text)) {
    if (m[2] !== undefined && m[3] === undefined) return true; // high surrogate, no low after it
    if (m[6] !== undefined) return true; // low surrogate with no high before it
  }
  return false;
}

const FORBIDDEN_KEY = /(?<!\\)(?:\\\\)*"(__proto__|constructor|prototype)"\s*:/;

/** The first forbidden key (`__proto__`, `constructor`, `prototype`) used as an object key, or null. */
export function forbiddenKey(text: string): string | null {
  if (!text.includes("__proto__") && !text.includes("constructor") && !text.includes("prototype"))
    return null;
  return FORBIDDEN_KEY.exec(text)?.[1] ?? null;
}

/**
 * The JSON path of the first string or key of a JSON value that holds a lone surrogate (a key's
 * path ends with the key itself), or null. For values JSON.stringify accepts (no cycles).
 */
export function loneSurrogatePath(value: unknown, path = "$"): string | null {
  if (typeof value === "string") return value.isWellFormed() ? null : path;
  if (typeof value !== "object" || value === null) return null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = loneSurrogatePath(value[i], `${path}[${i}]`);
      if (found !== null) return found;
    }
    return null;
  }
  for (const [key, child] of Object.entries(value)) {
    const at = `${path}.${key.isWellFormed() ? key : JSON.stringify(key)}`;
    if (!key.isWellFormed()) return at;
    const found = loneSurrogatePath(child, at);
    if (found !== null) return found;
  }
  return null;
}
