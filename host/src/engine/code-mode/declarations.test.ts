// JSON Schema → TypeScript declarations, and the search over tools: pure functions, tested directly.
import { describe, expect, test } from "vitest";
import type { ModelTool } from "../../contracts/host.ts";
import { declarationsOf, searchTools, typeOf } from "./declarations.ts";

const tool = (
  id: `${string}:${string}`,
  description: string,
  inputSchema: Record<string, unknown> = { type: "object" },
): ModelTool => ({
  id,
  wireName: id.replace(":", "__"),
  description,
  inputSchema,
  annotations: { readOnlyHint: true },
});

describe("typeOf", () => {
  test("maps scalars, unions, enums, consts, arrays, tuples and records", () => {
    expect(typeOf({ type: "string" })).toBe("string");
    expect(typeOf({ type: ["integer", "null"] })).toBe("number | null");
    expect(typeOf({ enum: ["a", 1, null] })).toBe('"a" | 1 | null');
    expect(typeOf({ const: true })).toBe("true");
    expect(typeOf({ anyOf: [{ type: "string" }, { type: "null" }] })).toBe("string | null");
    expect(typeOf({ type: "array", items: { type: "number" } })).toBe("number[]");
    expect(typeOf({ type: "array", items: { anyOf: [{ type: "string" }, { type: "number" }] } })).toBe(
      "Array<string | number>",
    );
    expect(typeOf({ type: "array", prefixItems: [{ type: "string" }, { type: "number" }] })).toBe(
      "[string, number]",
    );
    expect(typeOf({ type: "object" })).toBe("Record<string, unknown>");
    expect(typeOf({ type: "object", additionalProperties: { type: "number" } })).toBe(
      "{\n  [key: string]: number;\n}",
    );
    expect(typeOf({ $ref: "#/$defs/x" })).toBe("unknown");
    expect(typeOf(true)).toBe("unknown");
    expect(typeOf(false)).toBe("never");
  });

  test("marks optional and required-but-nullable properties optional, quotes odd keys, keeps docs", () => {
    const out = typeOf({
      type: "object",
      properties: {
        a: { type: "string", description: "The a.", maxLength: 3 },
        b: { type: ["number", "null"] },
        "c-d": { type: "boolean" },
      },
      required: ["a", "b"],
      additionalProperties: false,
    });
    expect(out).toBe(
      '{\n  /** The a. (maxLength 3) */ a: string;\n  b?: number | null;\n  "c-d"?: boolean;\n}',
    );
  });

  test("never lets a description close its doc comment", () => {
    const out = declarationsOf([tool("x:y", "evil */ declare const z: 1; /*")]);
    expect(out).not.toContain("evil */");
    expect(out.match(/\*\//g)).toHaveLength(1);
  });
});

describe("searchTools", () => {
  const tools = [
    tool("notes:searchNotes", "Search the agent's notes."),
    tool("render:renderChart", "Render numbers as a PNG bar chart."),
    tool("upload:uploadArtifact", "Upload a file produced by another tool."),
  ];
  test("ranks by name, namespace and description words; '*' lists every tool", () => {
    expect(searchTools(tools, "chart", 5).map((t) => t.id)).toEqual(["render:renderChart"]);
    expect(searchTools(tools, "upload file", 5)[0]?.id).toBe("upload:uploadArtifact");
    expect(searchTools(tools, "*", 2)).toHaveLength(2);
    expect(searchTools(tools, "weather", 5)).toEqual([]);
  });
  test("groups declarations per namespace", () => {
    const out = declarationsOf([tools[0] as ModelTool, tool("notes:readNote", "Read one note.")]);
    expect(out.match(/declare namespace tools\.notes/g)).toHaveLength(1);
    expect(out).toContain("function readNote(input: Record<string, unknown>): Promise<unknown>;");
  });
});
