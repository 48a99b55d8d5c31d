// The Zod stand-in of sandbox bundles: definitions evaluate (with the members plugin code reads
// at module scope), runtime parsing throws AIRLOCK_SDK_ZOD_RUNTIME_UNAVAILABLE with the opt-in.
import { describe, expect, it } from "vitest";
import { defineTool } from "../define-tool.ts";
import { isSchemaStub, zodMember, zodNamespace } from "./schema-stub.ts";

// The stand-in is typed like the namespace it replaces only loosely; tests read it untyped.
// biome-ignore lint/suspicious/noExplicitAny: the recorder answers any member
const z = zodNamespace as any;

function thrown(fn: () => unknown): { code?: string; message?: string } {
  try {
    fn();
  } catch (err) {
    return err as { code?: string; message?: string };
  }
  throw new Error("expected a throw");
}

describe("zod stand-in", () => {
  it("evaluates schema definitions and chains of any length", () => {
    const Input = z
      .object({
        name: z.string().min(1).max(40).nullable().describe("Name."),
        n: z.number().int().nonnegative().describe("Count."),
        tags: z
          .array(z.string().regex(/^[a-z]+$/))
          .max(5)
          .describe("Tags."),
        meta: z.record(z.string(), z.string()).describe("Meta."),
        pick: z.union([z.literal("a"), z.literal(2)]).describe("Pick."),
        when: z.iso.datetime().describe("When."),
        n2: z.coerce.number().describe("Coerced."),
      })
      .strict()
      .describe("The input.");
    expect(isSchemaStub(Input)).toBe(true);
    expect(Input._zod.def.type).toBe("object");
    expect(Input.description).toBe("The input.");
    expect(Object.keys(Input.shape)).toEqual(["name", "n", "tags", "meta", "pick", "when", "n2"]);
    expect(Input.shape.name.description).toBe("Name.");
    expect(Input.shape.tags.element._zod.def.type).toBe("string");
    expect(Input.shape.pick.options.map((o: { value: unknown }) => o.value)).toEqual(["a", 2]);
    expect(Input.shape.name.unwrap()._zod.def.type).toBe("string");
    expect(Input.shape.name.isNullable()).toBe(true);
  });

  it("gives enums real options and enum maps, and objects working extend/pick/omit/keyof", () => {
    const Color = z.enum(["red", "green", "blue"]);
    expect(Color.options).toEqual(["red", "green", "blue"]);
    expect(Color.enum).toEqual({ red: "red", green: "green", blue: "blue" });
    expect(Color.exclude(["red"]).options).toEqual(["green", "blue"]);
    const Base = z.object({ a: z.string(), b: z.number() });
    expect(Object.keys(Base.extend({ c: z.boolean() }).shape)).toEqual(["a", "b", "c"]);
    expect(Object.keys(z.object({ ...Base.shape, d: z.null() }).shape)).toEqual(["a", "b", "d"]);
    expect(Object.keys(Base.pick({ a: true }).shape)).toEqual(["a"]);
    expect(Object.keys(Base.omit({ a: true }).shape)).toEqual(["b"]);
    expect(Base.keyof().options).toEqual(["a", "b"]);
    expect(z.object({}).meta({ description: "M", title: "T" }).meta()).toEqual({
      description: "M",
      title: "T",
    });
  });

  it("throws AIRLOCK_SDK_ZOD_RUNTIME_UNAVAILABLE, naming the opt-in, from every runtime method", async () => {
    const S = z.string().min(1);
    for (const method of ["parse", "safeParse", "decode", "encode", "safeDecode", "safeEncode"]) {
      const err = thrown(() => S[method]("x"));
      expect(err.code).toBe("AIRLOCK_SDK_ZOD_RUNTIME_UNAVAILABLE");
      expect(err.message).toContain("runtimeZod: true");
    }
    await expect(Promise.resolve().then(() => S.parseAsync("x"))).rejects.toMatchObject({
      code: "AIRLOCK_SDK_ZOD_RUNTIME_UNAVAILABLE",
    });
    expect(thrown(() => S.safeParseAsync("x")).code).toBe("AIRLOCK_SDK_ZOD_RUNTIME_UNAVAILABLE");
    expect(thrown(() => S["~standard"].validate("x")).code).toBe("AIRLOCK_SDK_ZOD_RUNTIME_UNAVAILABLE");
    expect(thrown(() => z.parse(S, "x")).code).toBe("AIRLOCK_SDK_ZOD_RUNTIME_UNAVAILABLE");
    expect(thrown(() => z.toJSONSchema(S)).code).toBe("AIRLOCK_SDK_ZOD_RUNTIME_UNAVAILABLE");
  });

  it("is never a thenable, never an instance of a stand-in class, and prints as an object", async () => {
    const S = z.object({ a: z.string() });
    expect(await Promise.resolve(S)).toBe(S);
    expect(S instanceof z.ZodError).toBe(false);
    expect(S instanceof (zodMember("ZodType") as typeof Object)).toBe(false);
    expect(String(S)).toBe("[object Object]");
    expect(zodMember("z")).toBe(zodNamespace);
    expect(zodMember("default")).toBe(zodNamespace);
  });

  it("satisfies defineTool, whose checks read _zod.def.type and safeParse", () => {
    const tool = defineTool({
      name: "echo",
      description: "Echoes.",
      parameters: z.object({ text: z.string().describe("Text.") }),
      execute: async (input: { text: string }) => input.text,
    });
    expect(tool.parameters._zod.def.type).toBe("object");
    expect(() =>
      defineTool({ name: "bad", description: "x", parameters: z.string(), execute: async () => 1 }),
    ).toThrow(expect.objectContaining({ code: "AIRLOCK_SDK_TOOL_INVALID" }));
  });
});
