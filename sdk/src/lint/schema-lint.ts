// Strict-mode lint of one tool's input JSON Schema (as the build generates it from Zod).
// Every rule FAILS, none only warns. The rules, and the decisions taken where they were open:
//  - format: no `format` in {uri, email, uuid, date-time, date, time, ipv4, ipv6}, anywhere.
//  - optional: every property is listed in `required`, except one whose schema accepts null
//    (`.nullable().optional()` is allowed: the model may send null, so it cannot trip Zod).
//    A `.default()` field is not required on input, so it counts as a bare optional too.
//  - open-object: an object schema is open-ended when `additionalProperties` is `true` or a
//    schema that constrains nothing (`{}`, or one with only annotations), or when it is absent
//    on an object that declares no properties and no patternProperties. A typed map such as
//    `z.record(z.string(), z.string())` (`additionalProperties: {type: "string"}`) is allowed.
//  - description: every property has a non-empty `description` (on the property, or, for a
//    nullable property, on its non-null branch). The root schema itself needs none.
//  - depth (a guard, since registries lint untrusted manifests): a schema nested deeper than
//    MAX_SCHEMA_DEPTH levels is reported once at the level where the walk stops.
// The walk recurses into properties, additionalProperties, patternProperties, items,
// prefixItems, anyOf/oneOf/allOf, not, if/then/else and $defs/definitions.
import type { LintViolation } from "./types.ts";

type Schema = Record<string, unknown>;

export const FORBIDDEN_FORMATS: ReadonlySet<string> = new Set([
  "uri",
  "email",
  "uuid",
  "date-time",
  "date",
  "time",
  "ipv4",
  "ipv6",
]);

const ZOD_SOURCE: Readonly<Record<string, string>> = {
  uri: "z.url() / .url()",
  email: "z.email() / .email()",
  uuid: "z.uuid() / .uuid()",
  "date-time": "z.iso.datetime() / .datetime()",
  date: "z.iso.date() / .date()",
  time: "z.iso.time() / .time()",
  ipv4: "z.ipv4() / .ipv4()",
  ipv6: "z.ipv6() / .ipv6()",
};

export const MAX_SCHEMA_DEPTH = 64;

/** Keywords that make a schema constrain its value; a schema with none of them accepts anything. */
const CONSTRAINING = [
  "type",
  "enum",
  "const",
  "anyOf",
  "oneOf",
  "allOf",
  "not",
  "$ref",
  "properties",
  "items",
];

function isSchema(value: unknown): value is Schema {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function accepts(schema: Schema, type: string): boolean {
  const t = schema.type;
  return t === type || (Array.isArray(t) && t.includes(type));
}

function acceptsNull(schema: Schema): boolean {
  if (accepts(schema, "null") || schema.const === null) return true;
  if (Array.isArray(schema.enum) && schema.enum.includes(null)) return true;
  for (const key of ["anyOf", "oneOf"] as const) {
    const branches = schema[key];
    if (Array.isArray(branches) && branches.some((b) => isSchema(b) && acceptsNull(b))) return true;
  }
  return false;
}

function hasDescription(schema: Schema): boolean {
  if (typeof schema.description === "string" && schema.description.trim() !== "") return true;
  for (const key of ["anyOf", "oneOf"] as const) {
    const branches = schema[key];
    if (!Array.isArray(branches)) continue;
    const nonNull = branches.filter((b) => isSchema(b) && !accepts(b, "null"));
    if (nonNull.length === 1 && isSchema(nonNull[0]) && hasDescription(nonNull[0])) return true;
  }
  return false;
}

function isUnconstrained(value: unknown): boolean {
  if (value === true) return true;
  return isSchema(value) && !CONSTRAINING.some((k) => k in value);
}

function isObjectSchema(schema: Schema): boolean {
  return accepts(schema, "object") || isSchema(schema.properties) || "additionalProperties" in schema;
}

/** `$.properties.limit`, or `$.properties["odd-key"]` for keys that are not identifiers. */
function child(path: string, key: string): string {
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`;
}

function walk(schema: unknown, path: string, out: LintViolation[], depth: number): void {
  if (!isSchema(schema)) return;
  if (depth > MAX_SCHEMA_DEPTH) {
    out.push({
      path,
      rule: "depth",
      message: `the schema is nested deeper than ${MAX_SCHEMA_DEPTH} levels`,
      fix: "flatten the parameters, or accept a JSON string and parse it inside execute()",
    });
    return;
  }
  const next = depth + 1;
  const format = schema.format;
  if (typeof format === "string" && FORBIDDEN_FORMATS.has(format)) {
    out.push({
      path,
      rule: "format",
      message: `format "${format}" is not surfaced reliably to every model provider`,
      fix: `drop ${ZOD_SOURCE[format]}: use z.string().describe("...") and validate the value inside execute()`,
    });
  }
  if (isObjectSchema(schema)) lintObject(schema, path, out, next);
  const items = schema.items;
  if (Array.isArray(items)) for (const [i, s] of items.entries()) walk(s, `${path}.items[${i}]`, out, next);
  else walk(items, `${path}.items`, out, next);
  for (const key of ["anyOf", "oneOf", "allOf", "prefixItems"] as const) {
    const list = schema[key];
    if (Array.isArray(list)) for (const [i, s] of list.entries()) walk(s, `${path}.${key}[${i}]`, out, next);
  }
  for (const key of ["not", "if", "then", "else"] as const) walk(schema[key], `${path}.${key}`, out, next);
  for (const key of ["$defs", "definitions"] as const) {
    const defs = schema[key];
    if (isSchema(defs))
      for (const [name, s] of Object.entries(defs)) walk(s, child(`${path}.${key}`, name), out, next);
  }
}

function lintObject(schema: Schema, path: string, out: LintViolation[], next: number): void {
  const properties = isSchema(schema.properties) ? schema.properties : {};
  const patterns = isSchema(schema.patternProperties) ? schema.patternProperties : {};
  const extra = schema.additionalProperties;
  const declaresNothing = Object.keys(properties).length === 0 && Object.keys(patterns).length === 0;
  if ((extra === undefined && declaresNothing) || (extra !== undefined && isUnconstrained(extra))) {
    out.push({
      path,
      rule: "open-object",
      message: "open-ended object: model providers reject objects whose keys and values are unconstrained",
      fix: "declare every field with z.object({...}), use z.record(z.string(), z.string()) for a string map, or accept a JSON string and parse it inside execute()",
    });
  }
  const required = new Set(Array.isArray(schema.required) ? schema.required : []);
  for (const [key, prop] of Object.entries(properties)) {
    const at = child(`${path}.properties`, key);
    if (!required.has(key) && !(isSchema(prop) && acceptsNull(prop))) {
      out.push({
        path: at,
        rule: "optional",
        message: `"${key}" is a bare optional: models often send null for a missing field, which an optional refuses`,
        fix: "replace .optional() (or .default()) with .nullable() and apply the default inside execute(); use .nullable().optional() if it may also be left out",
      });
    }
    if (isSchema(prop) && !hasDescription(prop)) {
      out.push({
        path: at,
        rule: "description",
        message: `"${key}" has no description, so the model has to guess what it means`,
        fix: `add .describe("...") to "${key}" saying what it is and what values it takes`,
      });
    }
    walk(prop, at, out, next);
  }
  if (isSchema(extra)) walk(extra, `${path}.additionalProperties`, out, next);
  for (const [pattern, s] of Object.entries(patterns))
    walk(s, child(`${path}.patternProperties`, pattern), out, next);
}

/** Lints one input JSON Schema; `basePath` prefixes every reported path (default `$`). */
export function lintToolSchema(schema: unknown, basePath = "$"): LintViolation[] {
  const out: LintViolation[] = [];
  walk(schema, basePath, out, 0);
  return out;
}
