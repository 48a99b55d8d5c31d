// Omitted nullable properties read as null. Tool schemas are written for providers' strict
// mode: every property is required, and an optional one is nullable (`limit: number | null`).
// A client that simply leaves `limit` out means "no value", so before validation the host adds
// `limit: null` for each required property that is absent and whose schema accepts null, at the
// top level and inside nested objects the schema describes. Nothing else is filled in: a missing
// property that cannot be null is still refused by validation.
// Invariants: the caller's object is never mutated (a copy is returned when anything is added);
// `$ref`s into `$defs`/`definitions` are followed one level per step, with a depth bound.
import type { JsonSchema } from "@airlock/sdk/manifest";

type Schema = Record<string, unknown>;
const MAX_DEPTH = 16;

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function resolve(schema: unknown, root: Schema): Schema | undefined {
  if (!isObject(schema)) return undefined;
  const ref = schema.$ref;
  if (typeof ref !== "string") return schema;
  const match = /^#\/(\$defs|definitions)\/([^/]+)$/.exec(ref);
  const defs = match ? root[match[1] as string] : undefined;
  return isObject(defs) && match ? resolve(defs[match[2] as string], root) : undefined;
}

function acceptsNull(schema: unknown, root: Schema, depth = 0): boolean {
  const s = resolve(schema, root);
  if (s === undefined || depth > MAX_DEPTH) return false;
  if (s.type === "null" || (Array.isArray(s.type) && s.type.includes("null"))) return true;
  if (s.const === null || (Array.isArray(s.enum) && s.enum.includes(null))) return true;
  for (const key of ["anyOf", "oneOf"] as const) {
    const options = s[key];
    if (Array.isArray(options) && options.some((o) => acceptsNull(o, root, depth + 1))) return true;
  }
  return false;
}

function fill(value: unknown, schema: unknown, root: Schema, depth: number): unknown {
  const s = resolve(schema, root);
  if (s === undefined || depth > MAX_DEPTH || !isObject(value)) return value;
  const properties = isObject(s.properties) ? s.properties : undefined;
  if (properties === undefined) return value;
  const required = Array.isArray(s.required)
    ? s.required.filter((k): k is string => typeof k === "string")
    : [];
  let out: Record<string, unknown> | undefined;
  for (const key of required) {
    if (Object.hasOwn(value, key) || !Object.hasOwn(properties, key)) continue;
    if (!acceptsNull(properties[key], root)) continue;
    out ??= { ...value };
    out[key] = null;
  }
  for (const [key, propertySchema] of Object.entries(properties)) {
    const current = (out ?? value)[key];
    if (!isObject(current)) continue;
    const filled = fill(current, propertySchema, root, depth + 1);
    if (filled !== current) {
      out ??= { ...value };
      out[key] = filled;
    }
  }
  return out ?? value;
}

/** `input` with every omitted, required, nullable property set to null (a copy when any is added). */
export function fillOmittedNullables(schema: JsonSchema, input: unknown): unknown {
  return fill(input, schema, schema as Schema, 0);
}
