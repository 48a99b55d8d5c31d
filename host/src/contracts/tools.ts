// Tools, secrets and skills as the host's API lists them: the catalogue (GET /api/tools), one
// agent's view of it (enabled, served, missing secrets), its secrets read back, and the skills
// plugins ship (one line each, the body on request).
// Invariants: harness tools are never listed; a sensitive secret is never read back in clear
// (a mask at most); a skill's body is handed out only to an agent that has it enabled.
import type { FetchUse, JsonSchema, SecretSpec, ToolAnnotations } from "@airlock/sdk/manifest";

/**
 * A tool's effective per-tool grants as listings serve them (`_meta["airlock/grants"]` on MCP,
 * `grants` on the admin API; engine/catalogue/served-tool.ts derives them and the annotations).
 * Absent from a listing for a tool in the legacy mode (no `uses`: grants not declared).
 */
export interface EffectiveGrants {
  knowledge: "read" | "write" | "manage" | null;
  state: "read" | "write" | null;
  artifacts: Array<"put" | "take">;
  fetch: FetchUse[];
  /** The keys it may read: its requiredSecrets and uses.secrets. */
  secrets: string[];
  models: boolean;
  oauth: string[];
  /** `sha256-<base64>` of the manifest the grants come from. */
  manifest: string;
}

/** A tool as the catalogue lists it (GET /api/tools). Harness tools are never listed. */
export interface CatalogueTool {
  id: `${string}:${string}`;
  namespace: string;
  name: string;
  version: string;
  description: string;
  category: string;
  requiredSecrets: SecretSpec[];
  /** Derived from the tool's grants when it declares them (served-tool.ts), else the author's. */
  annotations: ToolAnnotations;
  inputSchema: JsonSchema;
  /** The tool's effective grants; absent in the legacy mode (not declared). */
  grants?: EffectiveGrants;
  /** With `grants`: the annotations its author wrote, which `annotations` replaces (the console shows the difference). */
  claimedAnnotations?: ToolAnnotations;
}

/** A tool as one agent sees it: enabled or not, and why it is not served when it is not. */
export interface AgentToolView extends CatalogueTool {
  enabled: boolean;
  /** Required (non-optional) secrets the agent has not set. */
  missingSecrets: string[];
  /** enabled and nothing missing. */
  served: boolean;
}

/** A secret as read back: sensitive values masked, readable ones in clear. */
export interface SecretView {
  key: string;
  set: boolean;
  sensitive: boolean;
  /** The value for readable secrets; a mask ("••••" + last 2 chars at most) for sensitive ones. */
  value: string | null;
  /** Tools (ids) that declare this key. */
  tools: string[];
  /**
   * How the active tools declare it (the first declaration; its label, description, choices), or
   * null when no active tool declares it: a value kept after its plugin was uninstalled, which
   * can be cleared but not set.
   */
  spec: SecretSpecView | null;
}

/** What a console needs of a key's SecretSpec to ask for it. */
export interface SecretSpecView {
  type: "text" | "select";
  label?: string;
  description?: string;
  choices?: string[];
  optional: boolean;
}

/** A skill of an active plugin, with whether the agent has it enabled (engine/skills/). */
export interface SkillView {
  /** `<ns>:skill:<id>` */
  id: string;
  namespace: string;
  name: string;
  description: string;
  enabled: boolean;
}

/** The body of a skill the agent has enabled. */
export interface SkillDocument {
  id: string;
  name: string;
  description: string;
  /** The SKILL.md body, front matter removed. */
  body: string;
  references: Array<{ path: string; content: string }>;
}

/**
 * A plugin UI (MCP Apps) as an agent is served it: one per UI that an enabled tool of the agent
 * names, read from the active plugin version's manifest.
 */
export interface UiResourceView {
  /** `ui://<namespace>/<name>` */
  uri: string;
  namespace: string;
  name: string;
  title?: string;
  description?: string;
  /** `text/html;profile=mcp-app` */
  mimeType: string;
  /** sha512 (SRI) of the HTML, as the signed manifest lists it. */
  integrity: string;
  csp?: { connectDomains?: string[]; resourceDomains?: string[] };
  prefersBorder?: boolean;
  /** The canonical ids of the agent's enabled tools that render in it. */
  tools: string[];
}

/** A UI's HTML, its bytes checked against the manifest's sha512 when read. */
export interface UiResourceDocument extends UiResourceView {
  html: string;
}
