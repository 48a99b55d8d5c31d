// ctx.elicit's flat form schema (MCP's restricted elicitation schema): checking what a plugin
// asks with, the wire form sent to the client (host-only keys stripped), checking what the
// client answers, and the audit view of an answer (values of sensitive fields left out).
// Invariants: nothing a plugin sends reaches the client unchecked; content reaches the plugin
// only when every field matches its schema and every required field is there; the audit view
// never holds the value of a field marked sensitive.
import { AirlockError } from "@airlock/sdk";
import { PEOPLE_ERRORS } from "./errors.ts";
import type { ElicitRequest } from "./types.ts";

export const MAX_ELICIT_MESSAGE = 4000;
export const MAX_ELICIT_FIELDS = 32;
const FIELD_NAME = /^[A-Za-z_][A-Za-z0-9_-]{0,63}$/;
const FORMATS = new Set(["email", "uri", "date", "date-time"]);
const MAX_TEXT = 10_000;

export type FormValue = string | number | boolean | string[];

/** A checked field: its wire form and what validation needs. */
interface Field {
  wire: Record<string, unknown>;
  sensitive: boolean;
  check(value: unknown): string | null;
}

export interface CheckedForm {
  message: string;
  /** The requestedSchema sent to the client. */
  wire: { type: "object"; properties: Record<string, Record<string, unknown>>; required?: string[] };
  fields: Map<string, Field>;
  required: string[];
}

function bad(message: string): AirlockError {
  return new AirlockError("AIRLOCK_ELICIT_INVALID", `ctx.elicit: ${message}`, {
    status: PEOPLE_ERRORS.AIRLOCK_ELICIT_INVALID.status,
  });
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

function text(raw: Record<string, unknown>, key: string, where: string, out: Record<string, unknown>): void {
  const v = raw[key];
  if (v === undefined) return;
  if (typeof v !== "string" || v.length > MAX_TEXT) throw bad(`${where}.${key} must be a string`);
  out[key] = v;
}

function count(
  raw: Record<string, unknown>,
  key: string,
  where: string,
  out: Record<string, unknown>,
): number | undefined {
  const v = raw[key];
  if (v === undefined) return undefined;
  if (typeof v !== "number" || !Number.isFinite(v)) throw bad(`${where}.${key} must be a finite number`);
  out[key] = v;
  return v;
}

function options(list: unknown, where: string): Array<{ const: string; title: string }> {
  if (!Array.isArray(list) || list.length === 0 || list.length > 100)
    throw bad(`${where} must list 1 to 100 options`);
  return list.map((o, i) => {
    if (!isObject(o) || typeof o.const !== "string" || typeof o.title !== "string") {
      throw bad(`${where}[${i}] must be { const: string, title: string }`);
    }
    return { const: o.const, title: o.title };
  });
}

function strings(list: unknown, where: string): string[] {
  if (
    !Array.isArray(list) ||
    list.length === 0 ||
    list.length > 100 ||
    !list.every((s) => typeof s === "string")
  ) {
    throw bad(`${where} must list 1 to 100 strings`);
  }
  return [...list] as string[];
}

function field(name: string, raw: unknown): Field {
  const where = `schema.properties.${name}`;
  if (!isObject(raw)) throw bad(`${where} must be an object`);
  const wire: Record<string, unknown> = { type: raw.type };
  text(raw, "title", where, wire);
  text(raw, "description", where, wire);
  const sensitive = raw.sensitive === true;
  if (raw.sensitive !== undefined && typeof raw.sensitive !== "boolean")
    throw bad(`${where}.sensitive must be a boolean`);
  let check: (value: unknown) => string | null;
  switch (raw.type) {
    case "string": {
      if (raw.enum !== undefined || raw.oneOf !== undefined) {
        const allowed =
          raw.enum !== undefined
            ? strings(raw.enum, `${where}.enum`)
            : options(raw.oneOf, `${where}.oneOf`).map((o) => o.const);
        if (raw.enum !== undefined) wire.enum = allowed;
        else wire.oneOf = options(raw.oneOf, `${where}.oneOf`);
        if (raw.enumNames !== undefined) {
          const names = strings(raw.enumNames, `${where}.enumNames`);
          if (raw.enum === undefined || names.length !== allowed.length)
            throw bad(`${where}.enumNames must match enum`);
          wire.enumNames = names;
        }
        check = (v) =>
          typeof v === "string" && allowed.includes(v) ? null : `must be one of ${allowed.join(", ")}`;
      } else {
        const min = count(raw, "minLength", where, wire) ?? 0;
        const max = count(raw, "maxLength", where, wire) ?? MAX_TEXT;
        if (raw.format !== undefined) {
          if (typeof raw.format !== "string" || !FORMATS.has(raw.format))
            throw bad(`${where}.format must be email, uri, date or date-time`);
          wire.format = raw.format;
        }
        check = (v) =>
          typeof v !== "string"
            ? "must be a string"
            : v.length < min || v.length > max
              ? `must be ${min} to ${max} characters`
              : null;
      }
      break;
    }
    case "number":
    case "integer": {
      const min = count(raw, "minimum", where, wire);
      const max = count(raw, "maximum", where, wire);
      const integer = raw.type === "integer";
      check = (v) =>
        typeof v !== "number" || !Number.isFinite(v) || (integer && !Number.isInteger(v))
          ? `must be ${integer ? "an integer" : "a number"}`
          : (min !== undefined && v < min) || (max !== undefined && v > max)
            ? `must be within ${min ?? "-∞"}..${max ?? "∞"}`
            : null;
      break;
    }
    case "boolean":
      check = (v) => (typeof v === "boolean" ? null : "must be true or false");
      break;
    case "array": {
      const items = raw.items;
      if (!isObject(items)) throw bad(`${where}.items must be { type: "string", enum } or { anyOf }`);
      let allowed: string[];
      if (items.anyOf !== undefined) {
        const list = options(items.anyOf, `${where}.items.anyOf`);
        wire.items = { anyOf: list };
        allowed = list.map((o) => o.const);
      } else {
        if (items.type !== "string") throw bad(`${where}.items.type must be "string"`);
        allowed = strings(items.enum, `${where}.items.enum`);
        wire.items = { type: "string", enum: allowed };
      }
      const min = count(raw, "minItems", where, wire) ?? 0;
      const max = count(raw, "maxItems", where, wire) ?? allowed.length;
      check = (v) =>
        !Array.isArray(v) || !v.every((s) => typeof s === "string" && allowed.includes(s))
          ? `must be a list of ${allowed.join(", ")}`
          : v.length < min || v.length > max
            ? `must hold ${min} to ${max} choices`
            : null;
      break;
    }
    default:
      throw bad(`${where}.type must be string, number, integer, boolean or array`);
  }
  if (raw.default !== undefined) {
    const problem = check(raw.default);
    if (problem !== null) throw bad(`${where}.default ${problem}`);
    wire.default = structuredClone(raw.default);
  }
  return { wire, sensitive, check };
}

/** Checks what a plugin passed to ctx.elicit; throws AIRLOCK_ELICIT_INVALID naming the fault. */
export function checkForm(request: unknown): CheckedForm {
  if (!isObject(request)) throw bad("pass { message, schema }");
  const { message, schema } = request as Partial<ElicitRequest>;
  if (typeof message !== "string" || message.length === 0 || message.length > MAX_ELICIT_MESSAGE) {
    throw bad(`message must be a string of 1 to ${MAX_ELICIT_MESSAGE} characters`);
  }
  if (!isObject(schema) || schema.type !== "object" || !isObject(schema.properties)) {
    throw bad('schema must be { type: "object", properties: { ... } }');
  }
  const names = Object.keys(schema.properties);
  if (names.length === 0 || names.length > MAX_ELICIT_FIELDS)
    throw bad(`schema must have 1 to ${MAX_ELICIT_FIELDS} properties`);
  const fields = new Map<string, Field>();
  const properties: Record<string, Record<string, unknown>> = {};
  for (const name of names) {
    if (!FIELD_NAME.test(name)) throw bad(`property name ${JSON.stringify(name)} is not a plain identifier`);
    const f = field(name, (schema.properties as Record<string, unknown>)[name]);
    fields.set(name, f);
    properties[name] = f.wire;
  }
  const required = schema.required === undefined ? [] : strings(schema.required, "schema.required");
  for (const name of required)
    if (!fields.has(name)) throw bad(`required names ${JSON.stringify(name)}, which is not a property`);
  return {
    message,
    wire: { type: "object", properties, ...(required.length > 0 ? { required } : {}) },
    fields,
    required,
  };
}

/** The content checked against the form; throws AIRLOCK_ELICIT_CONTENT_INVALID. */
export function checkContent(form: CheckedForm, content: unknown): Record<string, FormValue> {
  const fail = (message: string) =>
    new AirlockError(
      "AIRLOCK_ELICIT_CONTENT_INVALID",
      `the client's answer does not match the form: ${message}`,
      {
        status: PEOPLE_ERRORS.AIRLOCK_ELICIT_CONTENT_INVALID.status,
      },
    );
  if (!isObject(content)) throw fail("content is not an object");
  const out: Record<string, FormValue> = {};
  for (const [name, value] of Object.entries(content)) {
    const f = form.fields.get(name);
    if (f === undefined) throw fail(`${JSON.stringify(name.slice(0, 64))} is not a field of the form`);
    const problem = f.check(value);
    if (problem !== null) throw fail(`${name} ${problem}`);
    out[name] = structuredClone(value) as FormValue;
  }
  for (const name of form.required) if (!Object.hasOwn(out, name)) throw fail(`${name} is required`);
  return out;
}

/** What the audit keeps of an answer: every field's name, values only of fields not sensitive. */
export function auditView(form: CheckedForm, content: Record<string, FormValue>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(content)) {
    out[name] = form.fields.get(name)?.sensitive === true ? "[sensitive: omitted]" : value;
  }
  return out;
}
