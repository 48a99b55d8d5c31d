// Zod → JSON Schema for tool manifests, at build time only (never bundled into plugins).
// Why not zod-to-json-schema: its 3.x line reads Zod 3 internals and returns an empty schema
// (`{"$schema": ...}` with no properties) for Zod 4 schemas, so we use Zod 4's own
// `z.toJSONSchema`. Target: JSON Schema 2020-12 (the default dialect of MCP 2025-11-25: shared
// definitions under `$defs`; the host validates each schema in the dialect its `$schema` names,
// so manifests built for draft-07 keep working), `io: "input"` (the shape the model must send:
// a `.default()` field is optional, transforms are described by their input).
// Invariant: a plain `z.object` (unknown keys stripped by Zod) is emitted with
// `additionalProperties: false`, so the model is told not to invent keys; `z.looseObject`
// and `.catchall()` keep their open form (and the strict-mode lint reports them).
import { z } from "zod";
import { sdkError } from "../error-codes.ts";

export const JSON_SCHEMA_TARGET = "draft-2020-12";

/** The model-visible JSON Schema of a tool's parameters (or output) schema. */
export function toJsonSchema(schema: z.ZodType, io: "input" | "output" = "input"): Record<string, unknown> {
  try {
    return z.toJSONSchema(schema, {
      target: JSON_SCHEMA_TARGET,
      io,
      unrepresentable: "throw",
      override: (ctx) => {
        const def = ctx.zodSchema._zod.def as { type: string; catchall?: unknown };
        if (def.type === "object" && def.catchall === undefined) ctx.jsonSchema.additionalProperties = false;
      },
    }) as Record<string, unknown>;
  } catch (err) {
    throw sdkError(
      "AIRLOCK_SDK_BUILD_SCHEMA",
      `cannot express the schema as JSON Schema: ${err instanceof Error ? err.message : String(err)}`,
      { cause: err },
    );
  }
}
