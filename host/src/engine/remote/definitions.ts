// What a remote MCP server's tool list becomes in Airlock: each remote tool a ToolManifest of a
// generated plugin manifest, and each definition's pin, a sha256 over its canonical JSON (name,
// description, input schema, output schema). The install record carries a `remote` section
// (url, auth header or OAuth provider, private-address allowance, the pins) beside the
// manifest's usual fields; an OAuth provider is also declared in the manifest's `oauth`, with the
// server's host as its only API host, so the broker's connect links and callback serve it as
// they serve a packaged plugin's provider.
// Invariants: the server's annotations are kept as hints only — `readOnlyHint` in the served
// manifest is true only where the operator marked the tool read-only; a name that cannot be an
// Airlock tool name, or two remote names that map to one, refuse the whole listing
// (AIRLOCK_REMOTE_TOOL_NAME_INVALID); a definition holding a lone surrogate anywhere, or a title
// with a character readable-names.ts refuses, refuses it too (AIRLOCK_REMOTE_TOOL_INVALID); the pin
// never depends on key order.
import { createHash } from "node:crypto";
import {
  MAX_WIRE_NAME_LENGTH,
  type OAuthProviderSpec,
  READABLE_NAME_RULE,
  TOOL_NAME_PATTERN,
  unreadableCharacter,
  wireName,
} from "@airlock/sdk";
import {
  type EgressRule,
  type JsonSchema,
  type PluginManifest,
  SDK_VERSION,
  type SecretSpec,
  type ToolAnnotations,
  type ToolManifest,
} from "@airlock/sdk/manifest";
import { loneSurrogatePath } from "@airlock/sdk/strict-json";
import type { InstalledPluginRecord } from "../../state/store/types.ts";
import { remoteError } from "./errors.ts";

/** A tool as a remote server lists it (the fields Airlock reads). */
export interface RemoteTool {
  name: string;
  title?: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  annotations?: Record<string, unknown>;
}

export interface PinnedTool {
  /** The name the remote server uses (calls go out under it). */
  remoteName: string;
  /** sha256 (hex) of the canonical definition: what a later listing is compared with. */
  hash: string;
  /** Set by the operator only; the server's own readOnlyHint never sets it. */
  readOnly: boolean;
  /** The server's annotations, shown to the operator, never acted on. */
  hints: Record<string, unknown>;
}

export interface RemoteSection {
  /** The server's endpoint (http or https), without the `mcp+` prefix. */
  url: string;
  allowPrivate: string[];
  /** A static header whose value is the agent's secret `secret`. */
  header: { name: string; secret: string } | null;
  server: { name: string; version: string } | null;
  /** OAuth through the host's broker: the token goes in the Authorization header (absent: none). */
  oauth?: RemoteOAuth | null;
  /** A server the host starts (url `stdio:<command>`): the command the operator allowed, its args. */
  stdio?: { command: string; args: string[] } | null;
  /** 1 at install, +1 per reviewed change or read-only mark (the plugin version is 0.0.<revision>). */
  revision: number;
  /** Airlock tool name → pin. */
  tools: Record<string, PinnedTool>;
}

/** The OAuth provider an operator chose for a remote server (its API host is the server's). */
export interface RemoteOAuth {
  provider: string;
  authorizationUrl: string;
  tokenUrl: string;
  revocationUrl?: string;
  scopes: string[];
}

export type RemoteManifest = PluginManifest & { remote: RemoteSection };

/** The provider as the broker reads it: the server's host is its one API host. */
export function remoteProvider(section: Pick<RemoteSection, "url" | "oauth">): OAuthProviderSpec | undefined {
  const oauth = section.oauth;
  if (oauth === undefined || oauth === null) return undefined;
  return {
    name: oauth.provider,
    authorizationUrl: oauth.authorizationUrl,
    tokenUrl: oauth.tokenUrl,
    ...(oauth.revocationUrl === undefined ? {} : { revocationUrl: oauth.revocationUrl }),
    scopes: [...oauth.scopes],
    apiHosts: [new URL(section.url).hostname.replace(/^\[|\]$/g, "")],
  };
}

const MAX_DESCRIPTION = 8000;

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (typeof value === "object" && value !== null) {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/** The pin of one definition: name, description and schemas, key order ignored. */
export function definitionHash(tool: RemoteTool): string {
  const pinned = {
    name: tool.name,
    description: tool.description ?? "",
    inputSchema: tool.inputSchema,
    outputSchema: tool.outputSchema ?? null,
  };
  return createHash("sha256").update(canonical(pinned)).digest("hex");
}

/** The Airlock name of a remote tool name: `-` and `.` become `_`; undefined when still invalid. */
export function airlockToolName(remoteName: string): string | undefined {
  const name = remoteName.replace(/[-.]/g, "_");
  return TOOL_NAME_PATTERN.test(name) ? name : undefined;
}

/** Maps a listing to `airlock name → remote tool`, refusing names that do not map one to one. */
export function mapListing(namespace: string, tools: readonly RemoteTool[]): Map<string, RemoteTool> {
  const mapped = new Map<string, RemoteTool>();
  for (const tool of tools) {
    const name = typeof tool.name === "string" ? airlockToolName(tool.name) : undefined;
    if (name === undefined || wireName(namespace, name).length > MAX_WIRE_NAME_LENGTH) {
      throw remoteError(
        "AIRLOCK_REMOTE_TOOL_NAME_INVALID",
        `remote tool ${JSON.stringify(String(tool.name).slice(0, 80))} cannot be an Airlock tool name (${TOOL_NAME_PATTERN} after - and . become _, and ${namespace}__<name> at most ${MAX_WIRE_NAME_LENGTH} characters)`,
        { tool: String(tool.name).slice(0, 80) },
      );
    }
    const holder = mapped.get(name);
    if (holder !== undefined) {
      throw remoteError(
        "AIRLOCK_REMOTE_TOOL_NAME_INVALID",
        `remote tools "${holder.name}" and "${tool.name}" both map to ${namespace}:${name}; a tool id never replaces another`,
        { tool: name },
      );
    }
    if (
      typeof tool.inputSchema !== "object" ||
      tool.inputSchema === null ||
      Array.isArray(tool.inputSchema)
    ) {
      throw remoteError(
        "AIRLOCK_REMOTE_TOOL_INVALID",
        `remote tool "${tool.name}" has no input schema object`,
        {
          tool: name,
        },
      );
    }
    const notText = loneSurrogatePath(tool);
    if (notText !== null) {
      throw remoteError(
        "AIRLOCK_REMOTE_TOOL_INVALID",
        `remote tool "${name}": ${notText} holds a lone UTF-16 surrogate (not Unicode text)`,
        { tool: name, path: notText },
      );
    }
    const unreadable = typeof tool.title === "string" ? unreadableCharacter(tool.title) : null;
    if (unreadable !== null) {
      throw remoteError(
        "AIRLOCK_REMOTE_TOOL_INVALID",
        `remote tool "${name}": its title holds ${unreadable}; a title has ${READABLE_NAME_RULE}`,
        { tool: name },
      );
    }
    if ((tool.description ?? "").length > MAX_DESCRIPTION) {
      throw remoteError(
        "AIRLOCK_REMOTE_TOOL_INVALID",
        `remote tool "${tool.name}" has a description over ${MAX_DESCRIPTION} characters`,
        { tool: name },
      );
    }
    mapped.set(name, tool);
  }
  return mapped;
}

function headerSecret(section: Pick<RemoteSection, "header">): SecretSpec[] {
  if (section.header === null) return [];
  return [
    {
      key: section.header.secret,
      type: "text",
      label: `${section.header.name} header toward the remote MCP server`,
      optional: false,
      sensitive: true,
    },
  ];
}

function toolManifest(name: string, tool: RemoteTool, pin: PinnedTool, section: RemoteSection): ToolManifest {
  const annotations: ToolAnnotations = { readOnlyHint: pin.readOnly };
  if (typeof tool.title === "string" && tool.title !== "") annotations.title = tool.title.slice(0, 200);
  const manifest: ToolManifest = {
    name,
    description:
      tool.description === undefined || tool.description === "" ? `${tool.name} (remote)` : tool.description,
    category: "remote",
    inputSchema: structuredClone(tool.inputSchema) as JsonSchema,
    annotations,
    requiredSecrets: headerSecret(section),
    inputExamples: [],
    harness: null,
  };
  if (tool.outputSchema !== undefined)
    manifest.outputSchema = structuredClone(tool.outputSchema) as JsonSchema;
  return manifest;
}

export interface RecordInput {
  namespace: string;
  section: Omit<RemoteSection, "tools">;
  listing: ReadonlyMap<string, RemoteTool>;
  /** Operator marks carried over from the revision before (airlock name → read-only). */
  readOnly: ReadonlySet<string>;
  installedAt: string;
  /** Pins to keep as they are (a read-only mark re-issues the same definitions). */
  keepPins?: RemoteSection["tools"];
}

/** The install record of one revision: generated manifest, pins, and integrity over the pins. */
export function remoteRecord(input: RecordInput): InstalledPluginRecord {
  const { namespace } = input;
  const stdio = input.section.stdio ?? null;
  const url = new URL(stdio === null ? input.section.url : "stdio://local");
  const scheme = url.protocol === "https:" ? "https" : "http";
  const port = url.port === "" ? (scheme === "https" ? 443 : 80) : Number(url.port);
  // A stdio server is reached through no network: its manifest names no egress host.
  const egress: EgressRule[] =
    stdio === null ? [{ host: url.hostname.replace(/^\[|\]$/g, ""), ports: [port], schemes: [scheme] }] : [];
  const section: RemoteSection = { ...input.section, tools: {} };
  const tools: ToolManifest[] = [];
  for (const [name, tool] of [...input.listing].sort(([a], [b]) => a.localeCompare(b))) {
    const kept = input.keepPins?.[name];
    const pin: PinnedTool = {
      remoteName: tool.name,
      hash: kept?.hash ?? definitionHash(tool),
      readOnly: input.readOnly.has(name),
      hints: structuredClone(kept?.hints ?? tool.annotations ?? {}),
    };
    section.tools[name] = pin;
    tools.push(toolManifest(name, tool, pin, section));
  }
  const integrity = `sha512-${createHash("sha512")
    .update(
      canonical({
        url: section.url,
        tools: section.tools,
        header: section.header,
        ...(section.oauth ? { oauth: section.oauth } : {}),
        ...(section.stdio ? { stdio: section.stdio } : {}),
      }),
    )
    .digest("base64")}`;
  const version = `0.0.${section.revision}`;
  const manifest: RemoteManifest = {
    manifestVersion: 1,
    namespace,
    version,
    description:
      stdio === null
        ? `Remote MCP server ${section.server?.name ?? url.host} at ${url.host}`
        : `MCP server ${section.server?.name ?? stdio.command} run by the host (stdio: ${stdio.command})`,
    engine: "*",
    sdk: SDK_VERSION,
    bundle: { file: "", integrity, size: 0 },
    tools,
    knowledge: null,
    egress,
    limits: {},
    remote: section,
  };
  const provider = remoteProvider(section);
  if (provider !== undefined) manifest.oauth = [provider];
  return {
    namespace,
    version,
    manifest,
    integrity,
    signer: null,
    source: `mcp+${section.url}`,
    path: "",
    installedAt: input.installedAt,
  };
}

/** The remote section of an install record, or undefined for a packaged plugin. */
export function remoteSectionOf(record: InstalledPluginRecord): RemoteSection | undefined {
  const section = (record.manifest as Partial<RemoteManifest>).remote;
  return typeof section === "object" && section !== null && typeof section.url === "string"
    ? section
    : undefined;
}
