// TypeScript declarations of tools, generated from their JSON Schemas, and the search that picks
// which tools search_tools answers with. A model reads `declare namespace tools.<ns> { function
// <tool>(input: {...}): Promise<...> }` with descriptions as doc comments, and calls exactly that
// in run_code.
// Invariants: pure (no I/O); any schema yields a declaration (what TypeScript cannot say — a
// $ref, a pattern, a bound — becomes `unknown` or a doc line, never an error); a property that is
// required but nullable is declared optional, because the pipeline reads an omitted one as null.
import type { JsonSchema } from "@airlock/sdk/manifest";
import type { ModelTool } from "../../contracts/host.ts";

type Schema = Record<string, unknown>;

const IDENT = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

function isSchema(v: unknown): v is Schema {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function literal(v: unknown): string {
  return v === null || typeof v === "string" || typeof v === "number" || typeof v === "boolean"
    ? JSON.stringify(v)
    : "unknown";
}

/** A one-line doc comment (`/** … *\/ `) of these parts, or "" when there is nothing to say. */
function docComment(parts: string[]): string {
  const text = parts
    .flatMap((l) => l.split("\n"))
    .map((l) => l.trim())
    .filter((l) => l !== "")
    .join(" ")
    .replaceAll("*/", "*\\/");
  return text === "" ? "" : `/** ${text} */ `;
}

/** What a schema adds beyond its type, as doc lines (bounds, formats, defaults). */
function constraints(s: Schema): string[] {
  const out: string[] = [];
  const keys = [
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "minLength",
    "maxLength",
    "minItems",
    "maxItems",
    "pattern",
    "format",
    "default",
  ];
  const parts = keys.filter((k) => s[k] !== undefined).map((k) => `${k} ${JSON.stringify(s[k])}`);
  if (parts.length > 0) out.push(`(${parts.join(", ")})`);
  return out;
}

function union(types: string[]): string {
  const unique = [...new Set(types)];
  if (unique.includes("unknown")) return "unknown";
  return unique.length === 0 ? "never" : unique.join(" | ");
}

function isNullable(s: unknown): boolean {
  if (!isSchema(s)) return false;
  if (s.type === "null" || (Array.isArray(s.type) && s.type.includes("null"))) return true;
  const alternatives = (s.anyOf ?? s.oneOf) as unknown;
  return Array.isArray(alternatives) && alternatives.some(isNullable);
}

/** The TypeScript type of a JSON Schema, laid out at indentation `pad` (objects span lines). */
export function typeOf(schema: unknown, pad = "", depth = 0): string {
  if (schema === true || schema === undefined) return "unknown";
  if (schema === false) return "never";
  if (!isSchema(schema) || depth > 12) return "unknown";
  if ("const" in schema) return literal(schema.const);
  if (Array.isArray(schema.enum)) return union(schema.enum.map(literal));
  for (const key of ["anyOf", "oneOf"] as const) {
    const alts = schema[key];
    if (Array.isArray(alts)) return union(alts.map((a) => typeOf(a, pad, depth + 1)));
  }
  if (Array.isArray(schema.allOf)) {
    const parts = schema.allOf.map((a) => typeOf(a, pad, depth + 1)).filter((t) => t !== "unknown");
    return parts.length === 0 ? "unknown" : parts.join(" & ");
  }
  const types = Array.isArray(schema.type) ? schema.type : schema.type === undefined ? [] : [schema.type];
  if (types.length === 0) {
    if (isSchema(schema.properties)) return objectType(schema, pad, depth);
    return "unknown";
  }
  return union(
    types.map((t) => {
      switch (t) {
        case "string":
          return "string";
        case "number":
        case "integer":
          return "number";
        case "boolean":
          return "boolean";
        case "null":
          return "null";
        case "array":
          return arrayType(schema, pad, depth);
        case "object":
          return objectType(schema, pad, depth);
        default:
          return "unknown";
      }
    }),
  );
}

function arrayType(schema: Schema, pad: string, depth: number): string {
  const items = schema.prefixItems ?? schema.items;
  if (Array.isArray(items)) return `[${items.map((i) => typeOf(i, pad, depth + 1)).join(", ")}]`;
  const inner = typeOf(items, pad, depth + 1);
  return /^[A-Za-z"0-9]+$/.test(inner) ? `${inner}[]` : `Array<${inner}>`;
}

function objectType(schema: Schema, pad: string, depth: number): string {
  const properties = isSchema(schema.properties) ? schema.properties : {};
  const required = new Set(Array.isArray(schema.required) ? schema.required.map(String) : []);
  const inner = `${pad}  `;
  let body = "";
  for (const [name, prop] of Object.entries(properties)) {
    const optional = !required.has(name) || isNullable(prop);
    const doc = isSchema(prop)
      ? docComment([typeof prop.description === "string" ? prop.description : "", ...constraints(prop)])
      : "";
    const key = IDENT.test(name) ? name : JSON.stringify(name);
    body += `${inner}${doc}${key}${optional ? "?" : ""}: ${typeOf(prop, inner, depth + 1)};\n`;
  }
  const extra = schema.additionalProperties;
  if (extra !== undefined && extra !== false) {
    body += `${inner}[key: string]: ${extra === true ? "unknown" : typeOf(extra, inner, depth + 1)};\n`;
  } else if (body === "" && extra === undefined) {
    return "Record<string, unknown>";
  }
  return body === "" ? "{}" : `{\n${body}${pad}}`;
}

/** `tools.<namespace>.<tool>` of a tool, as code calls it. */
export function callPath(tool: ModelTool): string {
  const at = tool.id.indexOf(":");
  const ns = tool.id.slice(0, at);
  const name = tool.id.slice(at + 1);
  return `tools.${IDENT.test(ns) ? ns : `[${JSON.stringify(ns)}]`}.${name}`;
}

function annotationsLine(tool: ModelTool): string {
  const a = tool.annotations;
  const marks: string[] = [];
  if (a.readOnlyHint === true) marks.push("Read-only.");
  else marks.push("May wait for an operator's approval.");
  if (a.destructiveHint === true) marks.push("Destructive.");
  if (a.openWorldHint === true) marks.push("Reaches outside services.");
  if (tool.grants !== undefined) marks.push(`Grants: ${grantsText(tool.grants)}.`);
  return marks.join(" ");
}

/** A declared tool's effective grants in one line (engine/catalogue/served-tool.ts; legacy tools have none). */
function grantsText(g: NonNullable<ModelTool["grants"]>): string {
  const parts: string[] = [];
  if (g.knowledge !== null) parts.push(`knowledge ${g.knowledge}`);
  if (g.state !== null) parts.push(`state ${g.state}`);
  if (g.artifacts.length > 0) parts.push(`artifacts ${g.artifacts.join("/")}`);
  for (const f of g.fetch) parts.push(`fetch ${f.methods.join("/")} ${f.host}`);
  if (g.models) parts.push("models");
  if (g.oauth.length > 0) parts.push(`oauth ${g.oauth.join("/")}`);
  return `${parts.length === 0 ? "none" : parts.join(", ")} (manifest ${g.manifest})`;
}

/** One tool's function declaration (inside its `declare namespace tools.<ns>`), doc comment first. */
function functionOf(tool: ModelTool): string {
  const name = tool.id.slice(tool.id.indexOf(":") + 1);
  const doc = docComment([tool.description, annotationsLine(tool)]).trimEnd();
  const input = typeOf(tool.inputSchema, "  ");
  const output = tool.outputSchema === undefined ? "unknown" : typeOf(tool.outputSchema, "  ");
  return `  ${doc}\n  function ${name}(input: ${input}): Promise<${output}>;\n`;
}

/** The tools' declarations, one `declare namespace tools.<ns>` block per namespace (in order met). */
export function declarationsOf(tools: readonly ModelTool[]): string {
  const blocks = new Map<string, string>();
  for (const tool of tools) {
    const ns = tool.id.slice(0, tool.id.indexOf(":"));
    blocks.set(ns, (blocks.get(ns) ?? "") + functionOf(tool));
  }
  let out = "";
  for (const [ns, body] of blocks) {
    const space = IDENT.test(ns) ? ns : JSON.stringify(ns);
    out += `declare namespace tools.${space} {\n${body}}\n`;
  }
  return out;
}

/** One line per tool: how to call it and the first sentence of what it does. */
export function briefOf(tool: ModelTool): string {
  const first = tool.description.split(/(?<=[.!?])\s/)[0] ?? "";
  return `${callPath(tool)}(input) — ${first}`;
}

function words(text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w.length > 1);
}

/** How well a tool matches the query's words (0: not at all). */
function score(tool: ModelTool, query: string[]): number {
  const at = tool.id.indexOf(":");
  const ns = new Set(words(tool.id.slice(0, at)));
  const name = new Set(words(tool.id.slice(at + 1)));
  const description = new Set(words(tool.description));
  const params = new Set(
    words(Object.keys(isSchema(tool.inputSchema.properties) ? tool.inputSchema.properties : {}).join(" ")),
  );
  let total = 0;
  for (const w of query) {
    const prefix = (set: Set<string>) =>
      [...set].some((x) => x.startsWith(w) || (w.startsWith(x) && x.length >= 4));
    if (name.has(w)) total += 4;
    else if (prefix(name)) total += 2;
    if (ns.has(w)) total += 3;
    else if (prefix(ns)) total += 1;
    if (description.has(w)) total += 1;
    else if (prefix(description)) total += 0.5;
    if (params.has(w)) total += 0.5;
  }
  return total;
}

/** The tools matching `query`, best first (every tool for an empty query or "*"), at most `limit`. */
export function searchTools(tools: readonly ModelTool[], query: string, limit: number): ModelTool[] {
  const q = words(query);
  if (q.length === 0) return [...tools].sort((a, b) => (a.id < b.id ? -1 : 1)).slice(0, limit);
  return tools
    .map((tool) => ({ tool, s: score(tool, q) }))
    .filter((m) => m.s > 0)
    .sort((a, b) => b.s - a.s || (a.tool.id < b.tool.id ? -1 : 1))
    .slice(0, limit)
    .map((m) => m.tool);
}

export type { JsonSchema };
