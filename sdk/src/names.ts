// Naming rules shared by the SDK, the registry and the host. Pure data and predicates:
// safe to bundle into plugins (no node:* imports).

/** A plugin namespace: lowercase, starts with a letter, 2–32 chars, no `_` (keeps `ns__tool` reversible). */
export const NAMESPACE_PATTERN = /^[a-z][a-z0-9-]{1,31}$/;
/**
 * A tool name, regular or harness alike: camelCase or snake_case (`searchNotes`, `get_weather`).
 * A harness tool is marked by its `harness` flag, never by its case. `_` is allowed here and
 * never in a namespace, so the first `__` of `<namespace>__<tool>` always ends the namespace.
 */
export const TOOL_NAME_PATTERN = /^[a-z][a-zA-Z0-9_]{0,63}$/;
/** A harness group name: lowercase snake_case, e.g. `default`, `room`. */
export const HARNESS_GROUP_PATTERN = /^[a-z][a-z0-9]*(_[a-z0-9]+)*$/;
/** A secret key: lowercase snake_case. */
export const SECRET_KEY_PATTERN = /^[a-z][a-z0-9]*(_[a-z0-9]+)*$/;
/** The common limit of model providers' function names; `<namespace>__<tool>` must fit. */
export const MAX_WIRE_NAME_LENGTH = 64;

export const RESERVED_NAMESPACES: ReadonlySet<string> = new Set([
  // Airlock's own
  "airlock",
  "core",
  "host",
  "harness",
  "mcp",
  "system",
  "admin",
  "api",
  "internal",
  "sdk",
  "registry",
  "plugin",
  "plugins",
  "tool",
  "tools",
  // system-like: names an operator or a model would read as the platform's own
  "builtin",
  "builtins",
  "root",
  "sudo",
  "kernel",
  "daemon",
  "local",
  "localhost",
  "default",
  "operator",
  "security",
  "auth",
  "secrets",
  "audit",
  "node",
  "npm",
  "os",
  // JavaScript-significant: property names of every object, globals, keywords
  "constructor",
  "prototype",
  "proto",
  "hasownproperty",
  "tostring",
  "valueof",
  "object",
  "function",
  "global",
  "globalthis",
  "window",
  "self",
  "this",
  "eval",
  "process",
  "require",
  "module",
  "exports",
  "import",
  "null",
  "undefined",
  "nan",
  "infinity",
  "true",
  "false",
]);

/** Folds characters that read alike into one representative; hyphens vanish (1/l/i, 0/o, rn/m…). */
export function confusableSkeleton(name: string): string {
  return name
    .normalize("NFKC")
    .toLowerCase()
    .replace(/-/g, "")
    .replace(/rn/g, "m")
    .replace(/vv/g, "w")
    .replace(/cl/g, "d")
    .replace(/[1il|]/g, "l")
    .replace(/0/g, "o")
    .replace(/5/g, "s")
    .replace(/8/g, "b");
}

/** RESERVED_NAMESPACES in their order, as a list. */
const RESERVED_LIST: readonly string[] = [...RESERVED_NAMESPACES];

/**
 * confusableSkeleton of each RESERVED_LIST entry, written out (names.test.ts checks every entry
 * through namespaceRefusal against the fold computed afresh): a check
 * then folds one name, not all 57 again (≈ 500 regex replacements, 0.2 ms in each new sandbox
 * context, whose bundle runs definePlugin).
 */
const RESERVED_SKELETONS: readonly string[] = [
  "alrlock",
  "core",
  "host",
  "hamess",
  "mcp",
  "system",
  "admln",
  "apl",
  "lntemal",
  "sdk",
  "reglstry",
  "plugln",
  "pluglns",
  "tool",
  "tools",
  "bulltln",
  "bulltlns",
  "root",
  "sudo",
  "kemel",
  "daemon",
  "local",
  "localhost",
  "default",
  "operator",
  "securlty",
  "auth",
  "secrets",
  "audlt",
  "node",
  "npm",
  "os",
  "constructor",
  "prototype",
  "proto",
  "hasownproperty",
  "tostrlng",
  "valueof",
  "object",
  "functlon",
  "global",
  "globalthls",
  "wlndow",
  "self",
  "thls",
  "eval",
  "process",
  "requlre",
  "module",
  "exports",
  "lmport",
  "null",
  "undeflned",
  "nan",
  "lnflnlty",
  "true",
  "false",
];

/** Why a well-formed namespace is refused everywhere (build, publish, install), or null. */
export function namespaceRefusal(namespace: string): string | null {
  // IDNA reserves "??--" (xn-- is punycode): such a name can render as another script's word
  if (/^[a-z0-9]{2}--/.test(namespace))
    return `"${namespace}" looks like punycode (xn--…) or an IDNA-reserved label`;
  // the first reserved name that folds alike (a reserved name itself folds like itself)
  const reserved = RESERVED_LIST[RESERVED_SKELETONS.indexOf(confusableSkeleton(namespace))];
  if (reserved === undefined) return null;
  if (namespace === reserved) return `namespace "${namespace}" is reserved`;
  return `namespace "${namespace}" looks like the reserved namespace "${reserved}"`;
}

/** `<namespace>:<tool>`. */
export type ToolId = `${string}:${string}`;

export function toolId(namespace: string, tool: string): ToolId {
  return `${namespace}:${tool}`;
}

/** The id written where `:` is forbidden (MCP tool names, provider function names). */
export function wireName(namespace: string, tool: string): string {
  return `${namespace}__${tool}`;
}

/**
 * Inverse of `wireName`; `undefined` when the string is not a wire name. Splits at the first
 * `__`: a namespace holds no `_`, so `notes__mark__done` is `notes` + `mark__done`.
 */
export function parseWireName(name: string): { namespace: string; tool: string } | undefined {
  const at = name.indexOf("__");
  if (at <= 0) return undefined;
  return { namespace: name.slice(0, at), tool: name.slice(at + 2) };
}

/** Inverse of `toolId`; `undefined` when the string is not a canonical id. */
export function parseToolId(id: string): { namespace: string; tool: string } | undefined {
  const at = id.indexOf(":");
  if (at <= 0 || at === id.length - 1) return undefined;
  return { namespace: id.slice(0, at), tool: id.slice(at + 1) };
}
