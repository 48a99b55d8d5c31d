// Build-time guard of plugins built WITHOUT `runtimeZod`: their sandbox bundle carries no Zod,
// so a tool's input is enforced only by the host, against the JSON Schema generated from the
// tool's Zod schema. `assertHostEnforceable` walks the REAL Zod 4 schema (`_zod.def`) and
// refuses what JSON Schema cannot carry, so no rule the author wrote is silently dropped:
// refinements (`.refine`, `.superRefine`, `.check(fn)`, `z.custom(fn)`), transforms
// (`.transform`, `.trim()`/`.toLowerCase()` overwrites, codecs), `z.preprocess`, `.pipe`,
// coercion (`z.coerce.*`), and `.default`/`.prefault`/`.catch`.
// Invariant: it throws AIRLOCK_SDK_SCHEMA_UNENFORCEABLE on the FIRST such construct, naming the
// tool, the JSON path (`$.properties.tags.items`, the form of lint paths) and the fix; details
// carry {tool, path, construct}. Types it does not know are left to z.toJSONSchema (which
// throws AIRLOCK_SDK_BUILD_SCHEMA for what it cannot express).
import type { z } from "zod";
import { sdkError } from "../error-codes.ts";

/** Zod 4 check kinds that JSON Schema expresses (min/max, lengths, formats, patterns, multipleOf). */
const REPRESENTABLE_CHECKS = new Set([
  "less_than",
  "greater_than",
  "multiple_of",
  "number_format",
  "bigint_format",
  "max_length",
  "min_length",
  "length_equals",
  "string_format",
  "max_size",
  "min_size",
  "size_equals",
  "mime_type",
]);

const CONSTRUCT_HINT: Record<string, string> = {
  refine: "a refinement (.refine / .superRefine / .check(fn) / z.custom)",
  overwrite: "a value rewrite (.trim() / .toLowerCase() / .toUpperCase() / .normalize() / .overwrite())",
  transform: "a transform (.transform)",
  codec: "a codec (z.codec)",
  preprocess: "a preprocess step (z.preprocess)",
  pipe: "a pipe (.pipe)",
  coerce: "coercion (z.coerce.*)",
  default: "a default (.default)",
  prefault: "a prefault (.prefault)",
  catch: "a fallback (.catch)",
};

interface Def {
  type: string;
  checks?: Array<{ _zod: { def: { check: string } } }>;
  check?: string;
  coerce?: boolean;
  shape?: Record<string, z.ZodType>;
  catchall?: z.ZodType;
  element?: z.ZodType;
  items?: z.ZodType[];
  rest?: z.ZodType | null;
  options?: z.ZodType[];
  left?: z.ZodType;
  right?: z.ZodType;
  keyType?: z.ZodType;
  valueType?: z.ZodType;
  innerType?: z.ZodType;
  in?: z.ZodType;
  out?: z.ZodType;
  transform?: unknown;
  getter?: () => z.ZodType;
}

function defOf(schema: z.ZodType): Def {
  return schema._zod.def as unknown as Def;
}

function refuse(tool: string, path: string, construct: string): never {
  const what = CONSTRUCT_HINT[construct] ?? `a "${construct}" check`;
  throw sdkError(
    "AIRLOCK_SDK_SCHEMA_UNENFORCEABLE",
    `tool ${tool}: ${path} uses ${what}, which JSON Schema cannot carry, so the host cannot enforce it and the sandbox bundle carries no Zod to run it. Fix: drop it from the schema and validate inside execute(), or set \`runtimeZod: true\` in definePlugin({...}) to bundle real Zod and parse in the sandbox too.`,
    { details: { tool, path, construct } },
  );
}

function pipeConstruct(def: Def): string {
  if (def.transform !== undefined) return "codec";
  if (def.in !== undefined && defOf(def.in).type === "transform") return "preprocess";
  if (def.out !== undefined && defOf(def.out).type === "transform") return "transform";
  return "pipe";
}

function walk(tool: string, schema: z.ZodType, path: string, seen: Set<z.ZodType>): void {
  if (seen.has(schema)) return;
  seen.add(schema);
  const def = defOf(schema);
  if (def.type === "pipe") refuse(tool, path, pipeConstruct(def));
  if (def.type === "transform") refuse(tool, path, "transform");
  if (def.type === "custom") refuse(tool, path, "refine");
  if (def.type === "default" || def.type === "prefault" || def.type === "catch") refuse(tool, path, def.type);
  if (def.coerce === true) refuse(tool, path, "coerce");
  for (const check of def.checks ?? []) {
    const kind = check._zod.def.check;
    if (kind === "custom") refuse(tool, path, "refine");
    if (kind === "overwrite") refuse(tool, path, "overwrite");
    if (!REPRESENTABLE_CHECKS.has(kind)) refuse(tool, path, kind);
  }
  const at = (child: z.ZodType | null | undefined, childPath: string) => {
    if (child) walk(tool, child, childPath, seen);
  };
  for (const [key, child] of Object.entries(def.shape ?? {})) at(child, `${path}.properties.${key}`);
  at(def.catchall, `${path}.additionalProperties`);
  at(def.element, `${path}.items`);
  for (const [i, child] of (def.items ?? []).entries()) at(child, `${path}.items[${i}]`);
  at(def.rest, `${path}.additionalItems`);
  for (const [i, child] of (def.options ?? []).entries()) at(child, `${path}.anyOf[${i}]`);
  at(def.left, `${path}.allOf[0]`);
  at(def.right, `${path}.allOf[1]`);
  at(def.keyType, `${path}.propertyNames`);
  if (def.type === "record") at(def.valueType, `${path}.additionalProperties`);
  at(def.innerType, path);
  if (def.type === "lazy" && def.getter) at(def.getter(), path);
}

/** Throws AIRLOCK_SDK_SCHEMA_UNENFORCEABLE when `schema` uses a rule the host's JSON Schema check cannot enforce. */
export function assertHostEnforceable(tool: string, schema: z.ZodType): void {
  walk(tool, schema, "$", new Set());
}
