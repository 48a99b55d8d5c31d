// Definition-time checks of the parts of a defineTool() call: secrets, presentation,
// annotations, examples. Each failure throws an AIRLOCK_SDK_* error whose message starts with
// `defineTool("<name>"): <field>` and whose details carry {tool, field}. Bundle-safe.
import type { SdkErrorCode } from "./error-codes.ts";
import { sdkError } from "./error-codes.ts";
import type { Presentation, SecretSpec, ToolAnnotations } from "./manifest.ts";
import { SECRET_KEY_PATTERN } from "./names.ts";

/** A secret as an author declares it; `type` defaults to "text". */
export interface SecretDeclaration {
  /** Lowercase snake_case, e.g. `acme_api_key`. */
  key: string;
  type?: "text" | "select";
  label?: string;
  description?: string;
  /** Required for, and only allowed on, a select. */
  choices?: string[];
  /** May be left empty without the tool being withheld; default false. */
  optional?: boolean;
  /** A credential (masked, never exported). Default: true for text, false for select. */
  sensitive?: boolean;
}

export interface PresentationInput {
  label: string;
  icon: string;
  tone?: "info" | "success" | "warning" | "error";
  group?: string;
  /** Older alias of `group`. */
  family?: string;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function fail(code: SdkErrorCode, tool: string, field: string, problem: string): never {
  throw sdkError(code, `defineTool("${tool}"): ${field} ${problem}`, { details: { tool, field } });
}

function text(value: unknown, max: number): value is string {
  return typeof value === "string" && value.trim() !== "" && value.length <= max;
}

function onlyKeys(
  tool: string,
  field: string,
  value: Record<string, unknown>,
  known: readonly string[],
): void {
  for (const key of Object.keys(value)) {
    if (!known.includes(key)) {
      fail(
        "AIRLOCK_SDK_TOOL_INVALID",
        tool,
        `${field}.${key}`,
        `is not a known field (known: ${known.join(", ")})`,
      );
    }
  }
}

export function checkSecrets(tool: string, secrets: unknown): SecretSpec[] {
  if (secrets === undefined) return [];
  if (!Array.isArray(secrets))
    return fail("AIRLOCK_SDK_SECRET_INVALID", tool, "requiredSecrets", "must be an array");
  const seen = new Set<string>();
  return secrets.map((s: unknown, i): SecretSpec => {
    const at = `requiredSecrets[${i}]`;
    if (!isRecord(s))
      return fail("AIRLOCK_SDK_SECRET_INVALID", tool, at, "must be an object {key, type, ...}");
    const keys = ["key", "type", "label", "description", "choices", "optional", "sensitive"];
    for (const k of Object.keys(s)) {
      if (!keys.includes(k))
        fail(
          "AIRLOCK_SDK_SECRET_INVALID",
          tool,
          `${at}.${k}`,
          `is not a secret field (known: ${keys.join(", ")})`,
        );
    }
    const key = s.key;
    if (typeof key !== "string" || !SECRET_KEY_PATTERN.test(key)) {
      fail(
        "AIRLOCK_SDK_SECRET_INVALID",
        tool,
        `${at}.key`,
        `"${String(key)}" must be lowercase snake_case, e.g. acme_api_key`,
      );
    }
    if (seen.has(key)) fail("AIRLOCK_SDK_SECRET_INVALID", tool, `${at}.key`, `"${key}" is declared twice`);
    seen.add(key);
    const type = s.type ?? "text";
    if (type !== "text" && type !== "select") {
      fail("AIRLOCK_SDK_SECRET_INVALID", tool, `${at}.type`, `must be "text" or "select"`);
    }
    const spec: SecretSpec = {
      key,
      type,
      optional: s.optional === true,
      sensitive: typeof s.sensitive === "boolean" ? s.sensitive : type === "text",
    };
    if (s.optional !== undefined && typeof s.optional !== "boolean") {
      fail("AIRLOCK_SDK_SECRET_INVALID", tool, `${at}.optional`, "must be a boolean");
    }
    if (s.sensitive !== undefined && typeof s.sensitive !== "boolean") {
      fail("AIRLOCK_SDK_SECRET_INVALID", tool, `${at}.sensitive`, "must be a boolean");
    }
    if (type === "select") {
      const choices = s.choices;
      if (!Array.isArray(choices) || choices.length === 0 || !choices.every((c) => text(c, 200))) {
        fail(
          "AIRLOCK_SDK_SECRET_INVALID",
          tool,
          `${at}.choices`,
          "is required for a select: a non-empty list of strings",
        );
      }
      spec.choices = [...choices];
    } else if (s.choices !== undefined) {
      fail("AIRLOCK_SDK_SECRET_INVALID", tool, `${at}.choices`, 'only a "select" secret has choices');
    }
    if (s.label !== undefined) {
      if (!text(s.label, 120))
        fail("AIRLOCK_SDK_SECRET_INVALID", tool, `${at}.label`, "must be 1 to 120 characters");
      spec.label = s.label;
    }
    if (s.description !== undefined) {
      if (!text(s.description, 1000)) {
        fail("AIRLOCK_SDK_SECRET_INVALID", tool, `${at}.description`, "must be 1 to 1000 characters");
      }
      spec.description = s.description;
    }
    return spec;
  });
}

const TONES = ["info", "success", "warning", "error"];

export function checkPresentation(tool: string, value: unknown): Presentation | undefined {
  if (value === undefined) return undefined;
  const code = "AIRLOCK_SDK_PRESENTATION_INVALID";
  if (!isRecord(value))
    return fail(code, tool, "presentation", "must be an object {label, icon, tone?, group?}");
  for (const k of Object.keys(value)) {
    if (!["label", "icon", "tone", "group", "family"].includes(k)) {
      fail(
        code,
        tool,
        `presentation.${k}`,
        "is not a presentation field (known: label, icon, tone, group, family)",
      );
    }
  }
  if (!text(value.label, 120)) fail(code, tool, "presentation.label", "is required: 1 to 120 characters");
  if (!text(value.icon, 120)) fail(code, tool, "presentation.icon", "is required: an emoji or an icon key");
  const out: Presentation = { label: value.label, icon: value.icon };
  if (value.tone !== undefined) {
    if (typeof value.tone !== "string" || !TONES.includes(value.tone)) {
      fail(code, tool, "presentation.tone", `must be one of ${TONES.join(", ")}`);
    }
    out.tone = value.tone as NonNullable<Presentation["tone"]>;
  }
  const { group, family } = value;
  if (group !== undefined && family !== undefined && group !== family) {
    fail(
      code,
      tool,
      "presentation.family",
      `is an alias of group; "${String(family)}" contradicts group "${String(group)}"`,
    );
  }
  const resolved = group ?? family;
  if (resolved !== undefined) {
    if (!text(resolved, 64)) fail(code, tool, "presentation.group", "must be 1 to 64 characters");
    out.group = resolved;
  }
  return Object.freeze(out);
}

export function checkAnnotations(tool: string, value: unknown): ToolAnnotations {
  if (value === undefined) return {};
  if (!isRecord(value)) return fail("AIRLOCK_SDK_TOOL_INVALID", tool, "annotations", "must be an object");
  const hints = ["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"] as const;
  onlyKeys(tool, "annotations", value, ["title", ...hints]);
  const out: ToolAnnotations = {};
  if (value.title !== undefined) {
    if (!text(value.title, 120))
      fail("AIRLOCK_SDK_TOOL_INVALID", tool, "annotations.title", "must be 1 to 120 characters");
    out.title = value.title;
  }
  for (const hint of hints) {
    const v = value[hint];
    if (v === undefined) continue;
    if (typeof v !== "boolean")
      fail("AIRLOCK_SDK_TOOL_INVALID", tool, `annotations.${hint}`, "must be a boolean");
    out[hint] = v;
  }
  return out;
}

export function checkExamples(
  tool: string,
  value: unknown,
): Array<{ label: string; input: Record<string, unknown> }> {
  if (value === undefined) return [];
  if (!Array.isArray(value))
    return fail("AIRLOCK_SDK_TOOL_INVALID", tool, "inputExamples", "must be an array");
  return value.map((e: unknown, i) => {
    const at = `inputExamples[${i}]`;
    if (!isRecord(e)) return fail("AIRLOCK_SDK_TOOL_INVALID", tool, at, "must be {label, input}");
    onlyKeys(tool, at, e, ["label", "input"]);
    if (!text(e.label, 200))
      fail("AIRLOCK_SDK_TOOL_INVALID", tool, `${at}.label`, "is required: 1 to 200 characters");
    if (!isRecord(e.input))
      fail("AIRLOCK_SDK_TOOL_INVALID", tool, `${at}.input`, "must be an object of parameters");
    return { label: e.label, input: e.input };
  });
}
