import { describe, expect, test } from "vitest";
import { fillOmittedNullables } from "./omitted-nullables.ts";

const schema = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  type: "object",
  properties: {
    query: { type: "string" },
    limit: { anyOf: [{ type: "number" }, { type: "null" }] },
    tags: { type: ["array", "null"], items: { type: "string" } },
    where: { $ref: "#/$defs/where" },
  },
  required: ["query", "limit", "tags", "where"],
  additionalProperties: false,
  $defs: {
    where: {
      type: "object",
      properties: { city: { type: "string" }, zip: { type: ["string", "null"] } },
      required: ["city", "zip"],
    },
  },
};

describe("omitted nullable properties", () => {
  test("reads an omitted nullable property as null, nested ones through $ref too", () => {
    const input = { query: "x", where: { city: "Oslo" } };
    expect(fillOmittedNullables(schema, input)).toEqual({
      query: "x",
      limit: null,
      tags: null,
      where: { city: "Oslo", zip: null },
    });
    expect(input).toEqual({ query: "x", where: { city: "Oslo" } });
  });

  test("never fills a property that cannot be null, nor one the schema does not require", () => {
    const input = { limit: 3, tags: [] };
    expect(fillOmittedNullables(schema, input)).toBe(input);
    expect(input).toStrictEqual({ limit: 3, tags: [] });
  });

  test("leaves given values, non-objects and schemas without properties alone", () => {
    const input = { query: "x", limit: 5, tags: ["a"], where: { city: "Oslo", zip: "0150" } };
    expect(fillOmittedNullables(schema, input)).toBe(input);
    expect(fillOmittedNullables(schema, "text")).toBe("text");
    expect(fillOmittedNullables({ type: "object" }, { a: 1 })).toEqual({ a: 1 });
  });
});
