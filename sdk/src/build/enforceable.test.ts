// The build-time guard of plugins without runtimeZod: every rule JSON Schema cannot carry is
// refused with AIRLOCK_SDK_SCHEMA_UNENFORCEABLE naming tool, JSON path and construct.
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { assertHostEnforceable } from "./enforceable.ts";

function refusal(schema: z.ZodType): { code?: string; message?: string; details?: Record<string, unknown> } {
  try {
    assertHostEnforceable("lookUp", schema);
  } catch (err) {
    return err as { code?: string; message?: string; details?: Record<string, unknown> };
  }
  throw new Error("the schema was accepted");
}

const inField = (s: z.ZodType) => z.object({ outer: z.object({ field: s }) });

describe("assertHostEnforceable", () => {
  it.each([
    ["refine", z.string().refine((v) => v.length > 1)],
    ["refine", z.string().superRefine(() => undefined)],
    ["refine", z.string().check(() => undefined)],
    ["refine", z.custom<string>((v) => typeof v === "string")],
    ["overwrite", z.string().trim()],
    ["overwrite", z.string().toLowerCase()],
    ["transform", z.string().transform((v) => v.length)],
    ["preprocess", z.preprocess((v) => String(v), z.string())],
    ["pipe", z.string().pipe(z.string().min(1))],
    ["codec", z.codec(z.string(), z.number(), { decode: Number, encode: String })],
    ["coerce", z.coerce.number()],
    ["default", z.string().default("x")],
    ["prefault", z.string().prefault("x")],
    ["catch", z.string().catch("x")],
  ])("refuses %s, naming the tool, the JSON path and the fix", (construct, schema) => {
    const err = refusal(inField(schema));
    expect(err.code).toBe("AIRLOCK_SDK_SCHEMA_UNENFORCEABLE");
    expect(err.details).toEqual({ tool: "lookUp", path: "$.properties.outer.properties.field", construct });
    expect(err.message).toContain("tool lookUp");
    expect(err.message).toContain("$.properties.outer.properties.field");
    expect(err.message).toContain("execute()");
    expect(err.message).toContain("runtimeZod: true");
  });

  it("finds constructs inside arrays, unions, records, tuples, wrappers and lazy schemas", () => {
    const bad = z.string().refine(() => true);
    const cases: Array<[z.ZodType, string]> = [
      [z.object({ a: z.array(bad) }), "$.properties.a.items"],
      [z.object({ a: z.union([z.number(), bad]) }), "$.properties.a.anyOf[1]"],
      [z.object({ a: z.record(z.string(), bad) }), "$.properties.a.additionalProperties"],
      [z.object({ a: z.tuple([z.number(), bad]) }), "$.properties.a.items[1]"],
      [z.object({ a: bad.nullable().optional() }), "$.properties.a"],
      [z.object({ a: z.lazy(() => bad) }), "$.properties.a"],
      [
        z.object({ a: z.intersection(z.object({}), z.object({ b: bad })) }),
        "$.properties.a.allOf[1].properties.b",
      ],
      [z.object({ a: z.string() }).refine(() => true), "$"],
    ];
    for (const [schema, path] of cases) expect(refusal(schema).details?.path).toBe(path);
  });

  it("accepts every rule JSON Schema carries", () => {
    type Node = { name: string; children: Node[] };
    const tree: z.ZodType<Node> = z.lazy(() => z.object({ name: z.string(), children: z.array(tree) }));
    const ok = z.object({
      s: z
        .string()
        .min(1)
        .max(9)
        .regex(/^[a-z]+$/)
        .startsWith("a")
        .endsWith("z")
        .includes("m"),
      n: z.number().int().min(0).max(10).multipleOf(2).nullable(),
      e: z.enum(["a", "b"]),
      l: z.literal("x"),
      arr: z.array(z.string()).min(1).max(3),
      rec: z.record(z.string(), z.number()),
      u: z.discriminatedUnion("k", [z.object({ k: z.literal("a") }), z.object({ k: z.literal("b") })]),
      fmt: z.email(),
      opt: z.string().nullable().optional(),
      ro: z.string().readonly(),
      tree,
    });
    expect(() => assertHostEnforceable("lookUp", ok)).not.toThrow();
  });
});
