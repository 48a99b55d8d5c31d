// `definePlugin`: the default export of a plugin's entry. Checked at definition time:
// namespace (pattern, not reserved, every `<namespace>__<tool>` within 64 characters),
// semver version, engine range present, at least one tool and no duplicate names, knowledge
// level, egress rules (host names; bound secrets declared by some tool), requested limits,
// `runtimeZod` (a boolean; false unless set), OAuth providers (defineOAuthProvider results,
// unique names, every apiHost an egress host, no tool declaring a provider's client keys) and
// the models declaration. Bundle-safe. The build reads the result to generate `airlock.json`.

import { MAX_UIS, UI_NAME_PATTERN, type UiDeclaration } from "./apps-format.ts";
import { isRecord } from "./define-checks.ts";
import type { DefinedTool } from "./define-tool.ts";
import { isDefinedTool } from "./define-tool.ts";
import { sdkError } from "./error-codes.ts";
import type { EgressRule, RequestedLimits } from "./manifest.ts";
import { MAX_WIRE_NAME_LENGTH, NAMESPACE_PATTERN, namespaceRefusal, wireName } from "./names.ts";
import {
  type DefinedOAuthProvider,
  hostPatternCovers,
  isOAuthClientKey,
  type ModelsDeclaration,
  OAUTH_PROVIDER_KIND,
  type OAuthProviderSpec,
  providerManifest,
} from "./oauth.ts";

export type KnowledgeRequest = "read" | "write" | "manage" | null;

export interface PluginDefinitionInput {
  /** `^[a-z][a-z0-9-]{1,31}$`, not reserved; tools are called `<namespace>:<tool>`. */
  namespace: string;
  /** Semver of this plugin. */
  version: string;
  description?: string;
  /** Semver range of host versions the plugin runs on, e.g. "^1.0.0". */
  engine: string;
  tools: readonly DefinedTool[];
  /** The knowledge level the tools need to work well (informational; the operator grants). */
  knowledge?: KnowledgeRequest;
  /** Outbound destinations for ctx.fetch. */
  egress?: EgressRule[];
  /** Limits asked for; the host grants the minimum of these and its ceiling. */
  limits?: RequestedLimits;
  /**
   * Bundle real Zod into the sandbox and parse each input there too (default false: the bundle
   * carries a Zod stand-in, the host alone validates input against the generated JSON Schema,
   * and the build refuses schema rules JSON Schema cannot carry). See the SDK README.
   */
  runtimeZod?: boolean;
  /** OAuth providers the tools use (defineOAuthProvider results); the host brokers their tokens. */
  oauth?: readonly DefinedOAuthProvider[];
  /** Declares that the tools call models through `ctx.models` (the operator grants a connection). */
  models?: ModelsDeclaration;
  /**
   * UIs the tools render their results in (MCP Apps): each an HTML file the build makes
   * self-contained; a tool names one with `ui`. See docs/apps.md.
   */
  ui?: UiDeclaration[];
}

export const PLUGIN_KIND = "airlock.plugin";

export interface DefinedPlugin {
  readonly kind: typeof PLUGIN_KIND;
  readonly namespace: string;
  readonly version: string;
  readonly description: string;
  readonly engine: string;
  readonly tools: readonly DefinedTool[];
  readonly knowledge: KnowledgeRequest;
  readonly egress: readonly EgressRule[];
  readonly limits: RequestedLimits;
  readonly runtimeZod: boolean;
  readonly oauth: readonly OAuthProviderSpec[];
  readonly models: ModelsDeclaration | null;
  readonly ui: readonly UiDeclaration[];
}

const SEMVER = /^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$/;
const HOST = /^(\*\.)?[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/;
const LIMIT_KEYS = [
  "cpuMs",
  "wallMs",
  "memoryMb",
  "maxInputBytes",
  "maxResultBytes",
  "concurrency",
  "capabilityCalls",
];
const KNOWN_KEYS = [
  "namespace",
  "version",
  "description",
  "engine",
  "tools",
  "knowledge",
  "egress",
  "limits",
  "runtimeZod",
  "oauth",
  "models",
  "ui",
];

const UI_KEYS = ["name", "file", "title", "description", "csp", "prefersBorder"];

/** The shape of each UI declaration; whether tools name declared UIs and CSPs stay within egress is the build's check. */
function checkUi(value: unknown): UiDeclaration[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || value.length > MAX_UIS)
    return fail(
      "ui",
      `must be a list of at most ${MAX_UIS} {name, file, title?, description?, csp?, prefersBorder?}`,
    );
  return value.map((ui: unknown, i) => {
    const at = `ui[${i}]`;
    if (!isRecord(ui)) return fail(at, "must be an object");
    for (const k of Object.keys(ui))
      if (!UI_KEYS.includes(k)) fail(`${at}.${k}`, `is not a UI field (known: ${UI_KEYS.join(", ")})`);
    if (typeof ui.name !== "string" || !UI_NAME_PATTERN.test(ui.name))
      fail(`${at}.name`, `must match ${UI_NAME_PATTERN}`);
    if (typeof ui.file !== "string" || !/\.html?$/.test(ui.file))
      fail(`${at}.file`, "must be the path of an .html file in the plugin folder");
    for (const k of ["title", "description"] as const)
      if (ui[k] !== undefined && (typeof ui[k] !== "string" || ui[k] === ""))
        fail(`${at}.${k}`, "must be a non-empty string");
    if (ui.prefersBorder !== undefined && typeof ui.prefersBorder !== "boolean")
      fail(`${at}.prefersBorder`, "must be true or false");
    const csp = ui.csp;
    if (csp !== undefined) {
      if (!isRecord(csp)) fail(`${at}.csp`, "must be {connectDomains?, resourceDomains?}");
      for (const [k, list] of Object.entries(csp)) {
        if (k !== "connectDomains" && k !== "resourceDomains")
          fail(`${at}.csp.${k}`, "is not a CSP field (known: connectDomains, resourceDomains)");
        if (!Array.isArray(list) || !list.every((o) => typeof o === "string"))
          fail(`${at}.csp.${k}`, "must be a list of origins");
      }
    }
    return JSON.parse(JSON.stringify(ui)) as UiDeclaration;
  });
}

function fail(
  field: string,
  problem: string,
  code: "AIRLOCK_SDK_PLUGIN_INVALID" | "AIRLOCK_SDK_NAMESPACE_INVALID" = "AIRLOCK_SDK_PLUGIN_INVALID",
): never {
  throw sdkError(code, `definePlugin: ${field} ${problem}`, { details: { field } });
}

function checkNamespace(namespace: unknown): string {
  const code = "AIRLOCK_SDK_NAMESPACE_INVALID";
  if (typeof namespace !== "string" || !NAMESPACE_PATTERN.test(namespace)) {
    fail(
      "namespace",
      `"${String(namespace)}" must match ${NAMESPACE_PATTERN} (lowercase, digits, "-")`,
      code,
    );
  }
  const refusal = namespaceRefusal(namespace);
  if (refusal !== null) fail("namespace", refusal, code);
  return namespace;
}

function checkEgress(value: unknown, tools: readonly DefinedTool[]): EgressRule[] {
  if (value === undefined) return [];
  if (!Array.isArray(value))
    return fail(
      "egress",
      "must be an array of {host, ports?, schemes?, secrets?, secretMethods?, secretPaths?}",
    );
  const declared = new Set(tools.flatMap((t) => t.requiredSecrets.map((s) => s.key)));
  return value.map((rule: unknown, i) => {
    const at = `egress[${i}]`;
    if (!isRecord(rule) || typeof rule.host !== "string" || !HOST.test(rule.host)) {
      return fail(`${at}.host`, "must be a lowercase host name, or *.example.com for its subdomains");
    }
    for (const k of Object.keys(rule)) {
      if (!["host", "ports", "schemes", "secrets", "secretMethods", "secretPaths"].includes(k))
        fail(`${at}.${k}`, "is not an egress field");
    }
    const { ports, schemes, secrets } = rule;
    if (
      ports !== undefined &&
      !(
        Array.isArray(ports) &&
        ports.length > 0 &&
        ports.every((p) => Number.isInteger(p) && p >= 1 && p <= 65535)
      )
    ) {
      fail(`${at}.ports`, "must be a non-empty list of ports 1-65535");
    }
    if (
      schemes !== undefined &&
      !(Array.isArray(schemes) && schemes.length > 0 && schemes.every((s) => s === "https" || s === "http"))
    ) {
      fail(`${at}.schemes`, 'must be a non-empty list of "https" / "http"');
    }
    // secretMethods / secretPaths are checked by the manifest validation the build runs
    if (secrets !== undefined) {
      if (!Array.isArray(secrets)) fail(`${at}.secrets`, "must be a list of declared secret keys");
      for (const key of secrets) {
        if (!declared.has(key))
          fail(`${at}.secrets`, `"${String(key)}" is not declared by any tool's requiredSecrets`);
      }
    }
    return { ...(rule as unknown as EgressRule) };
  });
}

function checkOAuth(value: unknown, egress: readonly EgressRule[], tools: readonly DefinedTool[]) {
  for (const tool of tools) {
    for (const s of tool.requiredSecrets) {
      if (isOAuthClientKey(s.key))
        fail(
          "tools",
          `tool "${tool.name}" declares secret "${s.key}": keys ending in _oauth_client_id / _oauth_client_secret hold OAuth client credentials, which only the host reads`,
        );
    }
  }
  if (value === undefined) return [];
  if (!Array.isArray(value)) return fail("oauth", "must be a list of defineOAuthProvider() results");
  const names = new Set<string>();
  return value.map((p: unknown, i) => {
    if (!isRecord(p) || p.kind !== OAUTH_PROVIDER_KIND)
      fail(`oauth[${i}]`, "is not a defineOAuthProvider() result");
    const spec = p as unknown as OAuthProviderSpec;
    if (names.has(spec.name)) fail(`oauth[${i}]`, `duplicates the provider name "${spec.name}"`);
    names.add(spec.name);
    for (const host of spec.apiHosts) {
      if (!egress.some((r) => r.host === host || hostPatternCovers(r.host, host)))
        fail(
          `oauth[${i}].apiHosts`,
          `"${host}" is not an egress host of this plugin (add an egress rule for it)`,
        );
    }
    return providerManifest(spec);
  });
}

function checkModels(value: unknown): ModelsDeclaration | null {
  if (value === undefined || value === null) return null;
  const reason = isRecord(value) ? value.reason : undefined;
  if (
    !isRecord(value) ||
    Object.keys(value).some((k) => k !== "reason") ||
    typeof reason !== "string" ||
    reason.trim() === "" ||
    reason.length > 1000
  )
    return fail("models", "must be { reason } with a reason of 1 to 1000 characters");
  return { reason };
}

function checkLimits(value: unknown): RequestedLimits {
  if (value === undefined) return {};
  if (!isRecord(value)) return fail("limits", "must be an object");
  for (const [k, v] of Object.entries(value)) {
    if (!LIMIT_KEYS.includes(k)) fail(`limits.${k}`, `is not a limit (known: ${LIMIT_KEYS.join(", ")})`);
    if (!Number.isInteger(v) || (v as number) <= 0) fail(`limits.${k}`, "must be a positive integer");
  }
  return { ...value } as RequestedLimits;
}

/** Checks and normalises a plugin definition; throws AIRLOCK_SDK_PLUGIN_INVALID / _NAMESPACE_INVALID naming the field. */
export function definePlugin(definition: PluginDefinitionInput): DefinedPlugin {
  if (!isRecord(definition)) throw sdkError("AIRLOCK_SDK_PLUGIN_INVALID", "definePlugin() takes one object");
  for (const key of Object.keys(definition)) {
    if (!KNOWN_KEYS.includes(key)) fail(key, `is not a definePlugin field (known: ${KNOWN_KEYS.join(", ")})`);
  }
  const namespace = checkNamespace(definition.namespace);
  const { version, engine, description = "", knowledge = null, tools } = definition;
  if (typeof version !== "string" || !SEMVER.test(version))
    fail("version", `"${String(version)}" must be a semver version`);
  if (typeof engine !== "string" || engine.trim() === "")
    fail("engine", 'is required: a semver range of host versions, e.g. "^1.0.0"');
  if (typeof description !== "string" || description.length > 2000)
    fail("description", "must be a string of at most 2000 characters");
  const { runtimeZod = false } = definition;
  if (typeof runtimeZod !== "boolean") fail("runtimeZod", "must be true or false");
  if (knowledge !== null && !["read", "write", "manage"].includes(knowledge)) {
    fail("knowledge", 'must be "read", "write", "manage" or null');
  }
  if (!Array.isArray(tools) || tools.length === 0)
    fail("tools", "must list at least one defineTool() result");
  const seen = new Set<string>();
  tools.forEach((tool: unknown, i) => {
    if (!isDefinedTool(tool)) fail(`tools[${i}]`, "is not a defineTool() result");
    if (seen.has(tool.name)) fail(`tools[${i}]`, `duplicates the tool name "${tool.name}"`);
    seen.add(tool.name);
    const wire = wireName(namespace, tool.name);
    if (wire.length > MAX_WIRE_NAME_LENGTH) {
      fail(
        `tools[${i}]`,
        `"${wire}" is ${wire.length} characters; <namespace>__<tool> must fit in ${MAX_WIRE_NAME_LENGTH}`,
        "AIRLOCK_SDK_NAMESPACE_INVALID",
      );
    }
  });
  const egress = checkEgress(definition.egress, tools);
  return Object.freeze({
    kind: PLUGIN_KIND,
    namespace,
    version,
    description,
    engine,
    tools: Object.freeze([...tools]),
    knowledge,
    egress: Object.freeze(egress),
    limits: Object.freeze(checkLimits(definition.limits)),
    runtimeZod,
    oauth: Object.freeze(checkOAuth(definition.oauth, egress, tools)),
    models: checkModels(definition.models),
    ui: Object.freeze(checkUi(definition.ui)),
  });
}

/** True for a definePlugin result (by its marker, so it holds across module copies). */
export function isDefinedPlugin(value: unknown): value is DefinedPlugin {
  return isRecord(value) && value.kind === PLUGIN_KIND && Array.isArray(value.tools);
}
