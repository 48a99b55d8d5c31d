// Per-tool grants: what one tool declares it uses (`defineTool({ …, uses })`), how a declaration
// is checked when the tool is defined, and how it is checked against its plugin's manifest (the
// build and the host's installer run the same `usesBeyondPlugin`).
// Invariants: a tool without `uses` is in the legacy mode (today's per-plugin grants; the host
// shows it as "not declared"); a declared `uses` is the whole of what the tool may reach of
// knowledge, state, artifacts, fetch, models and oauth (an absent field is "none"), and a tool's
// readable secrets are its own requiredSecrets plus `uses.secrets`. A declaration never exceeds
// the plugin's: knowledge at most the plugin's level, fetch hosts covered by its egress rules,
// secrets some tool of the plugin declares, models only when the plugin declares models, oauth
// only its declared providers. Bundle-safe: no zod, no node:*.
import { fail, isRecord } from "./define-checks.ts";
import type { PluginManifest } from "./manifest.ts";
import { SECRET_KEY_PATTERN } from "./names.ts";
import { hostPatternCovers, OAUTH_PROVIDER_PATTERN } from "./oauth.ts";

export type HttpMethod = "GET" | "HEAD" | "POST" | "PUT" | "PATCH" | "DELETE" | "OPTIONS";
export const HTTP_METHODS: readonly HttpMethod[] = [
  "GET",
  "HEAD",
  "POST",
  "PUT",
  "PATCH",
  "DELETE",
  "OPTIONS",
];
/** Methods that change nothing at the destination (a fetch with only these keeps a tool read-only). */
export const SAFE_METHODS: ReadonlySet<string> = new Set(["GET", "HEAD"]);

/** One destination a tool may fetch, and with which methods. */
export interface FetchUse {
  /** Exact host, or `*.example.com`; covered by one of the plugin's egress rules. */
  host: string;
  methods: HttpMethod[];
}

/** What one tool declares it reaches. Absent fields are "none". */
export interface ToolUses {
  /** read: search, get, list; write: also write and append; manage: also delete. */
  knowledge?: "read" | "write" | "manage";
  /** read: get, keys; write: also set and delete. */
  state?: "read" | "write";
  artifacts?: Array<"put" | "take">;
  fetch?: FetchUse[];
  /** Secrets readable besides the tool's own requiredSecrets (keys another tool of the plugin declares). */
  secrets?: string[];
  models?: boolean;
  /** OAuth providers of the plugin the tool may use (ctx.oauth, fetch's init.oauth). */
  oauth?: string[];
}

const USES_KEYS = ["knowledge", "state", "artifacts", "fetch", "secrets", "models", "oauth"];
const HOST = /^(\*\.)?[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/;
const KNOWLEDGE_RANK = { read: 1, write: 2, manage: 3 } as const;

/** The rank of a knowledge level (null or unknown: 0). */
export function knowledgeRank(level: unknown): number {
  return typeof level === "string" && Object.hasOwn(KNOWLEDGE_RANK, level)
    ? KNOWLEDGE_RANK[level as keyof typeof KNOWLEDGE_RANK]
    : 0;
}

function stringList(tool: string, field: string, value: unknown, pattern: RegExp, what: string): string[] {
  if (!Array.isArray(value))
    return fail("AIRLOCK_SDK_TOOL_INVALID", tool, field, `must be an array of ${what}`);
  const out: string[] = [];
  value.forEach((v, i) => {
    if (typeof v !== "string" || !pattern.test(v))
      fail("AIRLOCK_SDK_TOOL_INVALID", tool, `${field}[${i}]`, `must be ${what}`);
    if (!out.includes(v)) out.push(v);
  });
  return out;
}

function checkFetch(tool: string, value: unknown): FetchUse[] {
  if (!Array.isArray(value))
    return fail("AIRLOCK_SDK_TOOL_INVALID", tool, "uses.fetch", "must be an array of { host, methods }");
  return value.map((entry, i) => {
    const at = `uses.fetch[${i}]`;
    if (!isRecord(entry)) return fail("AIRLOCK_SDK_TOOL_INVALID", tool, at, "must be { host, methods }");
    for (const key of Object.keys(entry))
      if (key !== "host" && key !== "methods")
        fail("AIRLOCK_SDK_TOOL_INVALID", tool, `${at}.${key}`, "is not a known field (known: host, methods)");
    if (typeof entry.host !== "string" || !HOST.test(entry.host))
      fail("AIRLOCK_SDK_TOOL_INVALID", tool, `${at}.host`, "must be a lowercase host name or *.domain");
    const methods = stringList(tool, `${at}.methods`, entry.methods, /^[A-Z]+$/, HTTP_METHODS.join(", "));
    if (methods.length === 0 || methods.some((m) => !HTTP_METHODS.includes(m as HttpMethod)))
      fail(
        "AIRLOCK_SDK_TOOL_INVALID",
        tool,
        `${at}.methods`,
        `must list one or more of ${HTTP_METHODS.join(", ")}`,
      );
    return { host: entry.host as string, methods: methods as HttpMethod[] };
  });
}

/** Checks and normalises defineTool's `uses`; undefined keeps the tool in the legacy mode. */
export function checkUses(tool: string, value: unknown): ToolUses | undefined {
  if (value === undefined) return undefined;
  if (!isRecord(value)) return fail("AIRLOCK_SDK_TOOL_INVALID", tool, "uses", "must be an object");
  for (const key of Object.keys(value))
    if (!USES_KEYS.includes(key))
      fail(
        "AIRLOCK_SDK_TOOL_INVALID",
        tool,
        `uses.${key}`,
        `is not a known field (known: ${USES_KEYS.join(", ")})`,
      );
  const out: ToolUses = {};
  const { knowledge, state, artifacts, models } = value;
  if (knowledge !== undefined) {
    if (knowledge !== "read" && knowledge !== "write" && knowledge !== "manage")
      fail("AIRLOCK_SDK_TOOL_INVALID", tool, "uses.knowledge", 'must be "read", "write" or "manage"');
    out.knowledge = knowledge;
  }
  if (state !== undefined) {
    if (state !== "read" && state !== "write")
      fail("AIRLOCK_SDK_TOOL_INVALID", tool, "uses.state", 'must be "read" or "write"');
    out.state = state;
  }
  if (artifacts !== undefined)
    out.artifacts = stringList(tool, "uses.artifacts", artifacts, /^(put|take)$/, '"put" or "take"') as Array<
      "put" | "take"
    >;
  if (value.fetch !== undefined) out.fetch = checkFetch(tool, value.fetch);
  if (value.secrets !== undefined)
    out.secrets = stringList(
      tool,
      "uses.secrets",
      value.secrets,
      SECRET_KEY_PATTERN,
      "a snake_case secret key",
    );
  if (models !== undefined) {
    if (typeof models !== "boolean")
      fail("AIRLOCK_SDK_TOOL_INVALID", tool, "uses.models", "must be true or false");
    out.models = models;
  }
  if (value.oauth !== undefined)
    out.oauth = stringList(tool, "uses.oauth", value.oauth, OAUTH_PROVIDER_PATTERN, "an OAuth provider name");
  return out;
}

/** One way a tool's `uses` exceeds its plugin's manifest. */
export interface UsesProblem {
  tool: string;
  /** JSON path in the manifest, `$.tools[2].uses.fetch[0].host`. */
  path: string;
  message: string;
}

/** The problems in one sentence, as every refusal of them says it (build, install, publish). */
export function usesProblemsText(problems: readonly UsesProblem[]): string {
  return `a tool uses more than its plugin declares: ${problems.map((p) => `${p.path}: ${p.message}`).join("; ")}`;
}

/** Every way a tool's `uses` exceeds what its plugin's manifest declares; [] when none does. */
export function usesBeyondPlugin(manifest: PluginManifest): UsesProblem[] {
  const problems: UsesProblem[] = [];
  const secrets = new Set(manifest.tools.flatMap((t) => t.requiredSecrets.map((s) => s.key)));
  const providers = new Set((manifest.oauth ?? []).map((p) => p.name));
  manifest.tools.forEach((t, i) => {
    const uses = t.uses;
    if (uses === undefined) return;
    const at = `$.tools[${i}].uses`;
    const add = (path: string, message: string) =>
      problems.push({ tool: t.name, path: `${at}${path}`, message: `tool ${t.name}: ${message}` });
    if (knowledgeRank(uses.knowledge) > knowledgeRank(manifest.knowledge))
      add(
        ".knowledge",
        `uses knowledge "${uses.knowledge}" but the plugin declares ${manifest.knowledge === null ? "no knowledge" : `knowledge "${manifest.knowledge}"`}`,
      );
    (uses.fetch ?? []).forEach((f, j) => {
      if (!manifest.egress.some((r) => hostPatternCovers(r.host, f.host)))
        add(`.fetch[${j}].host`, `fetches ${f.host}, which no egress rule of the plugin covers`);
    });
    (uses.secrets ?? []).forEach((key, j) => {
      if (!secrets.has(key))
        add(`.secrets[${j}]`, `reads secret "${key}", which no tool of the plugin declares`);
    });
    if (uses.models === true && manifest.models === undefined)
      add(".models", "uses models but the plugin declares no models");
    (uses.oauth ?? []).forEach((name, j) => {
      if (!providers.has(name))
        add(`.oauth[${j}]`, `uses OAuth provider "${name}", which the plugin does not declare`);
    });
  });
  return problems;
}
