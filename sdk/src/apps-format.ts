// Plugin UIs as MCP Apps (the `io.modelcontextprotocol/ui` extension, SEP-1865): the format a
// plugin's UIs take in its manifest and tarball, and the cross-checks every consumer runs (the
// build with AIRLOCK_SDK_BUILD_UI_* codes, the tarball reader with AIRLOCK_PACKAGE_UI_* codes).
// A UI is one self-contained HTML file `ui/<name>.html` in the package, listed in the manifest
// with its sha512; a tool names at most one UI (`tool.ui`), which the host serves as the MCP
// resource `ui://<namespace>/<name>`. Invariants: a UI's CSP names only origins whose host is
// one of the plugin's egress hosts (the UI reaches nothing the sandboxed code could not); a tool
// names a UI the manifest lists. Bundle-safe: no node:* import.
import type { EgressRule } from "./manifest.ts";
import { hostPatternCovers } from "./oauth.ts";

/** The extension identifier (SEP-1724 extensions capability key). */
export const UI_EXTENSION_ID = "io.modelcontextprotocol/ui";
/** The MIME type of an MCP App HTML resource. */
export const UI_MIME_TYPE = "text/html;profile=mcp-app";
/** A UI's name: lowercase, digits and "-", like a namespace. */
export const UI_NAME_PATTERN = /^[a-z][a-z0-9-]{0,31}$/;
export const MAX_UIS = 8;
/** Bytes of one built UI file. */
export const MAX_UI_BYTES = 2 * 1024 * 1024;
export const UI_DIR = "ui";

export type UiVisibility = "model" | "app";

/** What a plugin's author declares (definePlugin's `ui`). */
export interface UiDeclaration {
  /** The UI's name (`^[a-z][a-z0-9-]{0,31}$`); tools name it in `ui`. */
  name: string;
  /** The HTML source, relative to the plugin folder; its local scripts and styles are inlined by the build. */
  file: string;
  title?: string;
  description?: string;
  /** Origins the UI may reach (connect) or load from (resources); each host must be an egress host. */
  csp?: UiCsp;
  /** Whether the UI asks the client for a visible border. */
  prefersBorder?: boolean;
}

export interface UiCsp {
  connectDomains?: string[];
  resourceDomains?: string[];
}

/** A UI as the manifest lists it. */
export interface UiManifest {
  name: string;
  /** `ui/<name>.html` in the package. */
  file: string;
  /** sha512 (SRI form) of the file's bytes. */
  integrity: string;
  size: number;
  title?: string;
  description?: string;
  csp?: UiCsp;
  prefersBorder?: boolean;
}

export const uiFileOf = (name: string): string => `${UI_DIR}/${name}.html`;
export const uiResourceUri = (namespace: string, name: string): string => `ui://${namespace}/${name}`;

/** `ui://<namespace>/<name>` → its parts, or null for anything else. */
export function parseUiResourceUri(uri: string): { namespace: string; name: string } | null {
  const match = /^ui:\/\/([a-z][a-z0-9-]{1,31})\/([a-z][a-z0-9-]{0,31})$/.exec(uri);
  return match === null ? null : { namespace: match[1] as string, name: match[2] as string };
}

const ORIGIN = /^(https|wss):\/\/((?:\*\.)?[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*)$/;

/** Why a CSP origin is refused (not `https://host` / `wss://host`, or its host no egress host), or null. */
export function cspOriginProblem(origin: string, egress: readonly EgressRule[]): string | null {
  const match = ORIGIN.exec(origin);
  if (match === null)
    return `"${origin}" is not an origin of the form https://host or wss://host (a lowercase host, *.host for its subdomains, no port or path)`;
  const host = match[2] as string;
  const covered = egress.some((rule) => rule.host === host || hostPatternCovers(rule.host, host));
  return covered ? null : `"${origin}" is not an egress host of this plugin (add an egress rule for ${host})`;
}

export type UiProblemKind = "csp" | "unknown-ui" | "duplicate";

export interface UiProblem {
  kind: UiProblemKind;
  path: string;
  message: string;
}

/** The manifest-level problems of a plugin's UIs: CSP origins outside egress, tools naming a UI not listed, names twice. */
export function uiProblems(m: {
  ui?: readonly Pick<UiManifest, "name" | "csp">[];
  egress: readonly EgressRule[];
  tools: ReadonlyArray<{ name: string; ui?: string }>;
}): UiProblem[] {
  const problems: UiProblem[] = [];
  const names = new Set<string>();
  (m.ui ?? []).forEach((ui, i) => {
    if (names.has(ui.name))
      problems.push({
        kind: "duplicate",
        path: `$.ui[${i}].name`,
        message: `UI "${ui.name}" is listed twice`,
      });
    names.add(ui.name);
    for (const key of ["connectDomains", "resourceDomains"] as const) {
      (ui.csp?.[key] ?? []).forEach((origin, j) => {
        const why = cspOriginProblem(origin, m.egress);
        if (why !== null) problems.push({ kind: "csp", path: `$.ui[${i}].csp.${key}[${j}]`, message: why });
      });
    }
  });
  m.tools.forEach((tool, i) => {
    if (tool.ui !== undefined && !names.has(tool.ui))
      problems.push({
        kind: "unknown-ui",
        path: `$.tools[${i}].ui`,
        message: `tool "${tool.name}" names the UI "${tool.ui}", which the plugin does not declare (declared: ${[...names].join(", ") || "none"})`,
      });
  });
  return problems;
}
