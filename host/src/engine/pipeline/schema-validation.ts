// Host-side JSON Schema validation of tool inputs and outputs (ajv). Messages are written for
// the model that made the call: each problem names the path (`input.items[2].name`) and what
// is expected there, so the model can correct its next call.
// Invariants: validators are compiled once per (tool id, version, which schema) and cached;
// a schema's `$schema` picks the draft (draft-07, 2019-09, else 2020-12: the default dialect of
// MCP 2025-11-25, so a schema without `$schema` is read as 2020-12); formats are not
// enforced here (the plugin's own Zod parse still runs inside the sandbox); a schema that asks
// for nothing beyond what the pipeline already checked (an input is a plain JSON object) is
// never handed to ajv (`acceptsAnything`).

import type { JsonSchema } from "@airlock/sdk/manifest";
import { Ajv, type ErrorObject, type ValidateFunction } from "ajv";
import { Ajv2019 } from "ajv/dist/2019.js";
import { Ajv2020 } from "ajv/dist/2020.js";

const options = { allErrors: true, strict: false, validateFormats: false } as const;
type AnyAjv = Ajv | Ajv2019 | Ajv2020;

export interface SchemaProblem {
  path: string;
  message: string;
}

export type SchemaCheck = { ok: true } | { ok: false; problems: SchemaProblem[]; message: string };

export interface SchemaValidator {
  /** Validates `data` against `schema`, caching the compiled validator under `cacheKey`. */
  check(cacheKey: string, schema: JsonSchema, data: unknown, root: "input" | "output"): SchemaCheck;
}

function pathOf(root: string, instancePath: string): string {
  return segments(instancePath).reduce(
    (acc, seg) => (/^\d+$/.test(seg) ? `${acc}[${seg}]` : `${acc}.${seg}`),
    root,
  );
}

function kindOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number" && Number.isInteger(value)) return "integer";
  return typeof value;
}

function segments(instancePath: string): string[] {
  if (instancePath === "") return [];
  return instancePath
    .split("/")
    .slice(1)
    .map((seg) => seg.replace(/~1/g, "/").replace(/~0/g, "~"));
}

function valueAt(data: unknown, instancePath: string): unknown {
  let value = data;
  for (const seg of segments(instancePath)) {
    if (typeof value !== "object" || value === null) return undefined;
    value = (value as Record<string, unknown>)[seg];
  }
  return value;
}

function phrase(error: ErrorObject, root: string, data: unknown): SchemaProblem {
  const path = pathOf(root, error.instancePath);
  const p = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case "required":
      return { path, message: `missing required property "${String(p.missingProperty)}"` };
    case "additionalProperties":
      return { path, message: `unexpected property "${String(p.additionalProperty)}" (not in the schema)` };
    case "type":
      return {
        path,
        message: `expected ${String(p.type)}, got ${kindOf(valueAt(data, error.instancePath))}`,
      };
    case "enum":
      return {
        path,
        message: `expected one of ${(p.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(", ")}`,
      };
    case "const":
      return { path, message: `expected exactly ${JSON.stringify(p.allowedValue)}` };
    default:
      return { path, message: `${error.message ?? "is invalid"} (${error.keyword})` };
  }
}

/** Keywords that never reject anything (annotations). */
const ANNOTATIONS = new Set(["$schema", "$id", "$comment", "title", "description", "examples", "default"]);

const isEmptyObject = (v: unknown): boolean =>
  typeof v === "object" && v !== null && !Array.isArray(v) && Object.keys(v).length === 0;

/**
 * Whether `schema` accepts every value the pipeline can hand it: for an input (already known to
 * be a plain JSON object) `{type: "object"}` with no properties, required or closed
 * additionalProperties; for an output, a schema of annotations only.
 */
export function acceptsAnything(schema: JsonSchema, root: "input" | "output"): boolean {
  for (const [key, value] of Object.entries(schema)) {
    if (ANNOTATIONS.has(key)) continue;
    if (root === "output") return false;
    if (key === "type" && value === "object") continue;
    if (key === "properties" && isEmptyObject(value)) continue;
    if (key === "required" && Array.isArray(value) && value.length === 0) continue;
    if (key === "additionalProperties" && (value === true || isEmptyObject(value))) continue;
    return false;
  }
  return true;
}

export function createSchemaValidator(): SchemaValidator {
  const engines = new Map<string, AnyAjv>();
  /** null: the schema accepts anything the pipeline hands it (no ajv call). */
  const cache = new Map<string, ValidateFunction | null>();

  function engineFor(schema: JsonSchema): AnyAjv {
    const draft = typeof schema.$schema === "string" ? schema.$schema : "";
    const name = /draft-0[467]\b/.test(draft) ? "07" : draft.includes("2019-09") ? "2019" : "2020";
    let engine = engines.get(name);
    if (engine === undefined) {
      engine =
        name === "2020" ? new Ajv2020(options) : name === "2019" ? new Ajv2019(options) : new Ajv(options);
      engines.set(name, engine);
    }
    return engine;
  }

  function compile(cacheKey: string, schema: JsonSchema, root: "input" | "output"): ValidateFunction | null {
    let fn = cache.get(cacheKey);
    if (fn === undefined) {
      const { $schema: _draft, ...body } = schema;
      fn = acceptsAnything(schema, root)
        ? null
        : (engineFor(schema).compile({ ...body, $async: false }) as ValidateFunction);
      cache.set(cacheKey, fn);
    }
    return fn;
  }

  return {
    check(cacheKey, schema, data, root) {
      const validate = compile(cacheKey, schema, root);
      if (validate === null || validate(data)) return { ok: true };
      const problems = (validate.errors ?? []).map((e) => phrase(e, root, data));
      const unique = [...new Map(problems.map((p) => [`${p.path}|${p.message}`, p])).values()];
      const message = unique.map((p) => `${p.path}: ${p.message}`).join("; ");
      return { ok: false, problems: unique, message };
    },
  };
}
