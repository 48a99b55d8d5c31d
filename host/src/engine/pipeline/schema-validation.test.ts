import { describe, expect, it } from "vitest";
import { acceptsAnything, createSchemaValidator } from "./schema-validation.ts";

const schema = {
  $schema: "http://json-schema.org/draft-07/schema#",
  type: "object",
  properties: {
    city: { type: "string" },
    units: { type: "string", enum: ["metric", "imperial"] },
    days: { type: "array", items: { type: "integer" } },
  },
  required: ["city"],
  additionalProperties: false,
};

describe("schema validation", () => {
  it("accepts a valid input", () => {
    expect(createSchemaValidator().check("k", schema, { city: "Oslo", days: [1, 2] }, "input")).toEqual({
      ok: true,
    });
  });

  it("names each path and what is expected there", () => {
    const out = createSchemaValidator().check(
      "k",
      schema,
      { units: "kelvin", days: [1, "2"], extra: true },
      "input",
    );
    expect(out.ok).toBe(false);
    if (out.ok) return;
    expect(out.message).toContain('input: missing required property "city"');
    expect(out.message).toContain('input.units: expected one of "metric", "imperial"');
    expect(out.message).toContain("input.days[1]: expected integer, got string");
    expect(out.message).toContain('input: unexpected property "extra"');
  });

  it("validates draft 2020-12 schemas with the matching engine", () => {
    const modern = { ...schema, $schema: "https://json-schema.org/draft/2020-12/schema" };
    const out = createSchemaValidator().check("m", modern, { city: 3 }, "output");
    expect(out.ok).toBe(false);
    if (!out.ok) expect(out.message).toBe("output.city: expected string, got integer");
  });

  it("skips ajv only for schemas that ask nothing beyond a plain object input", () => {
    expect(acceptsAnything({ type: "object" }, "input")).toBe(true);
    expect(
      acceptsAnything({ type: "object", properties: {}, additionalProperties: true, title: "t" }, "input"),
    ).toBe(true);
    expect(acceptsAnything({ type: "object", properties: { a: { type: "string" } } }, "input")).toBe(false);
    expect(acceptsAnything({ type: "object", additionalProperties: false }, "input")).toBe(false);
    expect(acceptsAnything({ type: "object", required: ["a"] }, "input")).toBe(false);
    expect(acceptsAnything({ type: "object" }, "output")).toBe(false);
    expect(acceptsAnything({ description: "anything" }, "output")).toBe(true);
    // a skipped schema still answers ok, and a closed one still refuses
    const v = createSchemaValidator();
    expect(v.check("open", { type: "object" }, { any: 1 }, "input")).toEqual({ ok: true });
    expect(v.check("closed", { type: "object", additionalProperties: false }, { any: 1 }, "input").ok).toBe(
      false,
    );
  });
});
