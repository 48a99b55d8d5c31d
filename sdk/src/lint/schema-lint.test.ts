import { describe, expect, it } from "vitest";
import { z } from "zod";
import { toJsonSchema } from "../build/json-schema.ts";
import { lintManifestTools } from "./manifest-lint.ts";
import { lintToolSchema, MAX_SCHEMA_DEPTH } from "./schema-lint.ts";

const lint = (shape: z.ZodRawShape) => lintToolSchema(toJsonSchema(z.object(shape)));
const rules = (shape: z.ZodRawShape) => lint(shape).map((v) => `${v.rule} ${v.path}`);

describe("strict-mode lint: format", () => {
  it("accepts a plain described string", () => {
    expect(lint({ when: z.string().describe("An ISO date-time; checked in execute().") })).toEqual([]);
  });

  it.each([
    ["uri", z.url()],
    ["email", z.email()],
    ["uuid", z.uuid()],
    ["date-time", z.iso.datetime()],
    ["date", z.iso.date()],
    ["time", z.iso.time()],
    ["ipv4", z.ipv4()],
    ["ipv6", z.ipv6()],
  ])("refuses format %s with a path and a fix", (format, schema) => {
    const found = lint({ value: schema.describe("A value.") });
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ rule: "format", path: "$.properties.value" });
    expect(found[0]?.message).toContain(format);
    expect(found[0]?.fix).toContain("execute()");
  });

  it("finds a format nested in arrays and unions", () => {
    expect(
      rules({
        list: z.array(z.email()).describe("Addresses."),
        either: z.union([z.number(), z.url()]).describe("A number or a link."),
      }),
    ).toEqual(["format $.properties.list.items", "format $.properties.either.anyOf[1]"]);
  });
});

describe("strict-mode lint: optional", () => {
  it("accepts nullable and nullable-optional fields", () => {
    expect(
      lint({
        limit: z.number().int().nullable().describe("Max results, defaults to 10."),
        cursor: z.string().nullable().optional().describe("Where to resume."),
      }),
    ).toEqual([]);
  });

  it("refuses a bare optional and a defaulted field", () => {
    expect(
      rules({
        limit: z.number().optional().describe("Max results."),
        sort: z.string().default("asc").describe("Order."),
      }),
    ).toEqual(["optional $.properties.limit", "optional $.properties.sort"]);
  });

  it("refuses a bare optional inside a nested object", () => {
    expect(
      rules({ filter: z.object({ tag: z.string().optional().describe("Tag.") }).describe("Filter.") }),
    ).toEqual(["optional $.properties.filter.properties.tag"]);
  });
});

describe("strict-mode lint: open-object", () => {
  it("accepts a string map and a closed object", () => {
    expect(
      lint({
        filters: z.record(z.string(), z.string()).nullable().describe("Key/value filters."),
        point: z.object({ x: z.number().describe("X.") }).describe("A point."),
      }),
    ).toEqual([]);
  });

  it("refuses z.record(z.unknown()), a loose object and additionalProperties: true", () => {
    expect(
      rules({
        meta: z.record(z.string(), z.unknown()).describe("Anything."),
        loose: z.looseObject({ a: z.string().describe("A.") }).describe("Loose."),
      }),
    ).toEqual(["open-object $.properties.meta", "open-object $.properties.loose"]);
    expect(lintToolSchema({ type: "object", properties: {}, additionalProperties: true })).toMatchObject([
      { rule: "open-object", path: "$" },
    ]);
  });

  it("refuses an object schema that declares no properties and no additionalProperties", () => {
    expect(lintToolSchema({ type: "object" })).toMatchObject([{ rule: "open-object", path: "$" }]);
    expect(lintToolSchema({ type: "object", properties: {}, additionalProperties: false })).toEqual([]);
  });

  it("refuses an open object inside array items", () => {
    expect(rules({ rows: z.array(z.record(z.string(), z.any())).describe("Rows.") })).toEqual([
      "open-object $.properties.rows.items",
    ]);
  });
});

describe("strict-mode lint: description", () => {
  it("accepts a description placed before or after .nullable()", () => {
    expect(
      lint({ a: z.string().describe("A.").nullable(), b: z.string().nullable().describe("B.") }),
    ).toEqual([]);
  });

  it("refuses a field without a description, nested or not", () => {
    expect(rules({ q: z.string(), o: z.object({ p: z.number() }).describe("O.") })).toEqual([
      "description $.properties.q",
      "description $.properties.o.properties.p",
    ]);
  });

  it("quotes keys that are not identifiers in the path", () => {
    expect(
      lintToolSchema({ type: "object", properties: { "x-y": { type: "string" } }, required: ["x-y"] }),
    ).toMatchObject([{ rule: "description", path: '$.properties["x-y"]' }]);
  });
});

describe("lintManifestTools", () => {
  it("names the tool of each violation and passes a clean manifest", () => {
    const clean = { name: "ok", inputSchema: toJsonSchema(z.object({ q: z.string().describe("Q.") })) };
    const dirty = { name: "bad", inputSchema: toJsonSchema(z.object({ q: z.string().optional() })) };
    expect(lintManifestTools({ tools: [clean] })).toEqual([]);
    expect(lintManifestTools({ tools: [clean, dirty] }).map((v) => `${v.tool} ${v.rule}`)).toEqual([
      "bad optional",
      "bad description",
    ]);
  });
});

describe("strict-mode lint: depth guard", () => {
  it("walks a schema nested within the limit and stops with depth violations past it", () => {
    const nest = (levels: number): Record<string, unknown> => {
      let schema: Record<string, unknown> = { type: "string" };
      for (let i = 0; i < levels; i++) schema = { anyOf: [schema, { type: "null" }] };
      return schema;
    };
    expect(lintToolSchema(nest(MAX_SCHEMA_DEPTH))).toEqual([]);
    const deep = lintToolSchema(nest(100_000));
    // One violation per schema found at the first level past the limit (here: both anyOf branches).
    expect(deep.map((v) => v.rule)).toEqual(["depth", "depth"]);
  });
});
