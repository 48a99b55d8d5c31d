// Reads a loaded definePlugin() result into the manifest's tool entries, inside the same
// module graph as the plugin (the build bundles this file with the plugin's entry), so the Zod
// that converts the schemas is the plugin's own copy (Zod keeps `.describe()` in a per-copy
// registry). Examples are checked here: one that does not parse fails with its label.
// Without `runtimeZod`, each tool's parameters must be enforceable by the host alone
// (enforceable.ts: AIRLOCK_SDK_SCHEMA_UNENFORCEABLE otherwise).
import type { UiDeclaration } from "../apps-format.ts";
import { isDefinedPlugin } from "../define-plugin.ts";
import type { DefinedTool } from "../define-tool.ts";
import { sdkError } from "../error-codes.ts";
import { hasCode } from "../errors.ts";
import type { EgressRule, RequestedLimits, ToolManifest, ToolUses } from "../manifest.ts";
import { type ModelsDeclaration, type OAuthProviderSpec, providerManifest } from "../oauth.ts";
import { assertHostEnforceable } from "./enforceable.ts";
import { toJsonSchema } from "./json-schema.ts";

export interface DescribedPlugin {
  namespace: string;
  version: string;
  description: string;
  engine: string;
  knowledge: "read" | "write" | "manage" | null;
  egress: EgressRule[];
  limits: RequestedLimits;
  tools: ToolManifest[];
  /** definePlugin's `runtimeZod`: bundle real Zod (true) or the stand-in (false). */
  runtimeZod: boolean;
  oauth: OAuthProviderSpec[];
  models: ModelsDeclaration | null;
  /** definePlugin's `ui` declarations (the build bundles each file). */
  ui: UiDeclaration[];
}

function issuePath(path: ReadonlyArray<PropertyKey>): string {
  return path.reduce<string>(
    (acc, seg) => (typeof seg === "number" ? `${acc}[${seg}]` : `${acc}.${String(seg)}`),
    "$",
  );
}

/** The model-visible description: the author's text, then each example verbatim. */
export function describeWithExamples(description: string, examples: DefinedTool["inputExamples"]): string {
  if (examples.length === 0) return description;
  const lines = examples.map((e) => `- ${e.label}: ${JSON.stringify(e.input)}`);
  return `${description.trimEnd()}\n\nExamples:\n${lines.join("\n")}`;
}

function schemaOf(tool: DefinedTool, which: "parameters" | "output"): Record<string, unknown> {
  const schema = which === "parameters" ? tool.parameters : tool.output;
  if (schema === undefined) return {};
  try {
    return toJsonSchema(schema, which === "parameters" ? "input" : "output");
  } catch (err) {
    if (!hasCode(err, "AIRLOCK_SDK_BUILD_SCHEMA")) throw err;
    throw sdkError("AIRLOCK_SDK_BUILD_SCHEMA", `tool ${tool.name}, ${which}: ${err.message}`, { cause: err });
  }
}

function checkExamples(tool: DefinedTool): void {
  for (const example of tool.inputExamples) {
    const parsed = tool.parameters.safeParse(example.input);
    if (parsed.success) continue;
    const issues = parsed.error.issues.map((i) => `${issuePath(i.path)}: ${i.message}`);
    throw sdkError(
      "AIRLOCK_SDK_EXAMPLE_INVALID",
      `tool ${tool.name}: input example "${example.label}" does not match its parameters: ${issues.join("; ")}`,
      { details: { tool: tool.name, example: example.label, issues } },
    );
  }
}

function describeTool(tool: DefinedTool, runtimeZod: boolean): ToolManifest {
  if (!runtimeZod) assertHostEnforceable(tool.name, tool.parameters);
  checkExamples(tool);
  const entry: ToolManifest = {
    name: tool.name,
    description: describeWithExamples(tool.description, tool.inputExamples),
    category: tool.category,
    inputSchema: schemaOf(tool, "parameters"),
    annotations: { ...tool.annotations },
    requiredSecrets: tool.requiredSecrets.map((s) => ({
      ...s,
      ...(s.choices ? { choices: [...s.choices] } : {}),
    })),
    inputExamples: tool.inputExamples.map((e) => ({ label: e.label, input: e.input })),
    harness: tool.harness,
  };
  if (tool.output !== undefined) entry.outputSchema = schemaOf(tool, "output");
  if (tool.presentation !== undefined) entry.presentation = { ...tool.presentation };
  if (tool.longRunning) entry.longRunning = true;
  // tools defined by an older SDK copy have neither field
  if (tool.ui !== undefined) entry.ui = tool.ui;
  if (tool.visibility !== undefined) entry.visibility = [...tool.visibility];
  if (tool.uses !== undefined) entry.uses = JSON.parse(JSON.stringify(tool.uses)) as ToolUses;
  return entry;
}

/** Everything the manifest needs from the code; throws AIRLOCK_SDK_BUILD_ENTRY when `plugin` is not a definePlugin() result. */
export function describePlugin(plugin: unknown): DescribedPlugin {
  if (!isDefinedPlugin(plugin)) {
    throw sdkError(
      "AIRLOCK_SDK_BUILD_ENTRY",
      "the plugin entry must `export default definePlugin({...})` (its default export is not a definePlugin() result)",
    );
  }
  return {
    namespace: plugin.namespace,
    version: plugin.version,
    description: plugin.description,
    engine: plugin.engine,
    knowledge: plugin.knowledge,
    egress: plugin.egress.map((r) => ({ ...r })),
    limits: { ...plugin.limits },
    tools: plugin.tools.map((tool) => describeTool(tool, plugin.runtimeZod === true)),
    runtimeZod: plugin.runtimeZod === true,
    // plugins built by an older SDK copy have neither field
    oauth: (plugin.oauth ?? []).map(providerManifest),
    models: plugin.models === undefined || plugin.models === null ? null : { reason: plugin.models.reason },
    ui: (plugin.ui ?? []).map((u) => JSON.parse(JSON.stringify(u)) as UiDeclaration),
  };
}
