// `defineTool`: an author's tool definition, checked when it is defined (module load), so a
// mistake fails the author's build with an error naming the field, never a user's call.
// Invariants of a DefinedTool: name is camelCase or snake_case (harness or not: a harness tool
// is marked by its flag, never by its case); secret
// keys are lowercase snake_case and unique; a select secret has choices and only it has them;
// `sensitive` is explicit (text → true, select → false unless declared); `presentation.family`
// is folded into `group`; `harness: true` means group "default". Bundle-safe: zod is used
// through the schema's own methods only (no zod import), so one zod copy serves the plugin.
import type { z } from "zod";
import { UI_NAME_PATTERN, type UiVisibility } from "./apps-format.ts";
import type { ToolContext } from "./context.ts";
import {
  checkAnnotations,
  checkExamples,
  checkPresentation,
  checkSecrets,
  fail,
  isRecord,
  type PresentationInput,
  type SecretDeclaration,
} from "./define-checks.ts";
import { sdkError } from "./error-codes.ts";
import type { Presentation, SecretSpec, ToolAnnotations } from "./manifest.ts";
import { HARNESS_GROUP_PATTERN, TOOL_NAME_PATTERN } from "./names.ts";
import { checkUses, type ToolUses } from "./tool-uses.ts";

export type { PresentationInput, SecretDeclaration } from "./define-checks.ts";

/** The parameters schema of a tool: a Zod object. */
export type ParametersSchema = z.ZodObject;

export interface ToolDefinitionInput<P extends ParametersSchema, O extends z.ZodType = z.ZodType> {
  /** The tool's only identifier: camelCase or snake_case (`searchNotes`, `get_weather`). */
  name: string;
  /** Short, action-oriented, model-visible. The build appends the input examples to it. */
  description: string;
  /** Catalogue category; default "general". */
  category?: string;
  requiredSecrets?: SecretDeclaration[];
  /** Few-shot hints; each is checked against `parameters` at build time. */
  inputExamples?: Array<{ label: string; input: z.input<P> }>;
  /** Static Zod object, serialised to JSON Schema at build time; must pass the strict-mode lint. */
  parameters: P;
  /** Optional schema of `structuredContent` the tool returns. */
  output?: O;
  annotations?: ToolAnnotations;
  /** UI metadata, never sent to the model. `family` is an older alias of `group`. */
  presentation?: PresentationInput;
  /** `true` (group "default") or a harness group name: a harness tool, injected, not enabled per agent. */
  harness?: boolean | string;
  /**
   * The tool may run longer than a client waits for one request: an MCP client that asks for a
   * task gets a task id at once and fetches the result later (the host's task wall limit applies).
   */
  longRunning?: boolean;
  /**
   * What this tool reaches (per-tool grants, tool-uses.ts): the build refuses more than the
   * plugin declares, the host refuses any call beyond it. Absent: the legacy per-plugin grants.
   */
  uses?: ToolUses;
  /** The name of one of the plugin's UIs (definePlugin `ui`) that renders this tool's results (MCP Apps). */
  ui?: string;
  /** Who may call the tool (MCP Apps): the model, the app (its UI), or both; default both. */
  visibility?: UiVisibility[];
  execute: (input: z.output<P>, ctx: ToolContext) => unknown;
}

/** The recognisable marker of a defineTool result. */
export const TOOL_KIND = "airlock.tool";

export interface DefinedTool<P extends ParametersSchema = ParametersSchema> {
  readonly kind: typeof TOOL_KIND;
  readonly name: string;
  readonly description: string;
  readonly category: string;
  readonly requiredSecrets: readonly SecretSpec[];
  readonly inputExamples: ReadonlyArray<{ label: string; input: Record<string, unknown> }>;
  readonly parameters: P;
  readonly output: z.ZodType | undefined;
  readonly annotations: ToolAnnotations;
  readonly presentation: Presentation | undefined;
  /** The harness group, or null for a regular tool. */
  readonly harness: string | null;
  /** Whether MCP clients may run it as a task (ToolDefinitionInput.longRunning). */
  readonly longRunning: boolean;
  /** The tool's declared grants; undefined in the legacy mode. */
  readonly uses: ToolUses | undefined;
  /** The UI that renders its results, or undefined. */
  readonly ui: string | undefined;
  /** MCP Apps visibility, or undefined for the default (model and app). */
  readonly visibility: readonly UiVisibility[] | undefined;
  /** Method syntax on purpose: it keeps DefinedTool<SpecificSchema> assignable to DefinedTool. */
  execute(input: z.output<P>, ctx: ToolContext): unknown;
}

const KNOWN_KEYS = new Set([
  "name",
  "description",
  "category",
  "requiredSecrets",
  "inputExamples",
  "parameters",
  "output",
  "annotations",
  "presentation",
  "harness",
  "longRunning",
  "uses",
  "ui",
  "visibility",
  "execute",
]);

function checkVisibility(tool: string, value: unknown): UiVisibility[] | undefined {
  if (value === undefined) return undefined;
  if (
    !Array.isArray(value) ||
    value.length === 0 ||
    !value.every((v) => v === "model" || v === "app") ||
    new Set(value).size !== value.length
  )
    return fail(
      "AIRLOCK_SDK_TOOL_INVALID",
      tool,
      "visibility",
      'must be a non-empty list of "model" and/or "app"',
    );
  return [...value] as UiVisibility[];
}

function isZodSchema(value: unknown): value is z.ZodType {
  return isRecord(value) && typeof value.safeParse === "function" && isRecord(value._zod);
}

function harnessGroup(tool: string, value: unknown): string | null {
  if (value === undefined || value === false) return null;
  if (value === true) return "default";
  if (typeof value === "string" && HARNESS_GROUP_PATTERN.test(value)) return value;
  return fail("AIRLOCK_SDK_TOOL_INVALID", tool, "harness", "must be true, false or a snake_case group name");
}

function checkName(name: unknown): string {
  if (typeof name !== "string" || name === "") {
    return fail("AIRLOCK_SDK_TOOL_NAME", "?", "name", "is required (a camelCase or snake_case string)");
  }
  if (!TOOL_NAME_PATTERN.test(name)) {
    return fail(
      "AIRLOCK_SDK_TOOL_NAME",
      name,
      "name",
      `"${name}" must be camelCase or snake_case: a lowercase letter, then letters, digits or _ (${TOOL_NAME_PATTERN})`,
    );
  }
  return name;
}

/** Checks and normalises a tool definition; throws AIRLOCK_SDK_TOOL_* naming the field at fault. */
export function defineTool<P extends ParametersSchema, O extends z.ZodType = z.ZodType>(
  definition: ToolDefinitionInput<P, O>,
): DefinedTool<P> {
  if (!isRecord(definition)) throw sdkError("AIRLOCK_SDK_TOOL_INVALID", "defineTool() takes one object");
  const label = typeof definition.name === "string" ? definition.name : "?";
  for (const key of Object.keys(definition)) {
    if (!KNOWN_KEYS.has(key)) {
      fail(
        "AIRLOCK_SDK_TOOL_INVALID",
        label,
        key,
        `is not a defineTool field (known: ${[...KNOWN_KEYS].join(", ")})`,
      );
    }
  }
  const harness = harnessGroup(label, definition.harness);
  const name = checkName(definition.name);
  const { description, category = "general", parameters, output, execute } = definition;
  if (typeof description !== "string" || description.trim() === "") {
    fail("AIRLOCK_SDK_TOOL_INVALID", name, "description", "is required: a short, model-visible sentence");
  }
  if (typeof category !== "string" || !/^.{1,64}$/.test(category)) {
    fail("AIRLOCK_SDK_TOOL_INVALID", name, "category", "must be a string of 1 to 64 characters");
  }
  if (!isZodSchema(parameters) || (parameters._zod.def as { type: string }).type !== "object") {
    fail("AIRLOCK_SDK_TOOL_INVALID", name, "parameters", "must be a Zod object schema, e.g. z.object({...})");
  }
  if (output !== undefined && !isZodSchema(output)) {
    fail("AIRLOCK_SDK_TOOL_INVALID", name, "output", "must be a Zod schema when given");
  }
  if (typeof execute !== "function") {
    fail("AIRLOCK_SDK_TOOL_INVALID", name, "execute", "must be a function (input, ctx) => result");
  }
  if (definition.longRunning !== undefined && typeof definition.longRunning !== "boolean") {
    fail("AIRLOCK_SDK_TOOL_INVALID", name, "longRunning", "must be true or false");
  }
  if (
    definition.ui !== undefined &&
    (typeof definition.ui !== "string" || !UI_NAME_PATTERN.test(definition.ui))
  ) {
    fail("AIRLOCK_SDK_TOOL_INVALID", name, "ui", `must name one of the plugin's UIs (${UI_NAME_PATTERN})`);
  }
  const visibility = checkVisibility(name, definition.visibility);
  return Object.freeze({
    kind: TOOL_KIND,
    name,
    description,
    category,
    requiredSecrets: Object.freeze(checkSecrets(name, definition.requiredSecrets)),
    inputExamples: Object.freeze(checkExamples(name, definition.inputExamples)),
    parameters,
    output,
    annotations: Object.freeze(checkAnnotations(name, definition.annotations)),
    presentation: checkPresentation(name, definition.presentation),
    harness,
    longRunning: definition.longRunning === true,
    uses: checkUses(name, definition.uses),
    ui: definition.ui,
    visibility: visibility === undefined ? undefined : Object.freeze(visibility),
    execute,
  });
}

/** True for a defineTool result (by its marker, so it holds across module copies). */
export function isDefinedTool(value: unknown): value is DefinedTool {
  return isRecord(value) && value.kind === TOOL_KIND && typeof value.execute === "function";
}
