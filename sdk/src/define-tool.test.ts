import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool, isDefinedTool, type ToolDefinitionInput } from "./define-tool.ts";

const parameters = z.object({ query: z.string().describe("What to search for.") });
const base = { name: "searchNotes", description: "Searches notes.", parameters, execute: async () => "ok" };

function refusal(definition: Record<string, unknown>): { code: string; message: string } {
  try {
    defineTool({ ...base, ...definition } as unknown as ToolDefinitionInput<typeof parameters>);
  } catch (err) {
    return err as { code: string; message: string };
  }
  throw new Error("defineTool accepted the definition");
}

describe("defineTool names", () => {
  it("accepts a camelCase name and defaults category, secrets, annotations", () => {
    const tool = defineTool(base);
    expect(isDefinedTool(tool)).toBe(true);
    expect(tool).toMatchObject({
      name: "searchNotes",
      category: "general",
      harness: null,
      requiredSecrets: [],
    });
    expect(tool.annotations).toEqual({});
  });

  it("accepts a snake_case name on a regular tool", () => {
    expect(defineTool({ ...base, name: "search_notes" })).toMatchObject({
      name: "search_notes",
      harness: null,
    });
    expect(defineTool({ ...base, name: "test_simple_text" }).name).toBe("test_simple_text");
  });

  it("marks a harness tool by its flag, whatever its case; harness true means group default", () => {
    expect(defineTool({ ...base, name: "mark_done", harness: true }).harness).toBe("default");
    expect(defineTool({ ...base, name: "mark_done", harness: "room" }).harness).toBe("room");
    expect(defineTool({ ...base, name: "markDone", harness: true }).harness).toBe("default");
  });

  it("refuses a name that is neither camelCase nor snake_case, naming the accepted form", () => {
    for (const name of [
      "SearchNotes",
      "_search",
      "9lives",
      "search-notes",
      "search notes",
      `a${"b".repeat(64)}`,
    ]) {
      const err = refusal({ name });
      expect(err.code, name).toBe("AIRLOCK_SDK_TOOL_NAME");
      expect(err.message, name).toContain("camelCase or snake_case");
    }
  });

  it("refuses a harness group that is not snake_case", () => {
    expect(refusal({ name: "mark_done", harness: "Room" }).message).toContain("harness");
  });
});

describe("defineTool secrets", () => {
  it("defaults sensitive: text is a credential, select and sensitive:false are readable", () => {
    const tool = defineTool({
      ...base,
      requiredSecrets: [
        { key: "acme_api_key", type: "text" },
        { key: "acme_region", type: "select", choices: ["eu", "us"], optional: true },
        { key: "acme_base_url", sensitive: false },
      ],
    });
    expect(tool.requiredSecrets.map((s) => [s.key, s.sensitive, s.optional])).toEqual([
      ["acme_api_key", true, false],
      ["acme_region", false, true],
      ["acme_base_url", false, false],
    ]);
  });

  it("refuses a secret key that is not lowercase snake_case, naming the field", () => {
    const err = refusal({ requiredSecrets: [{ key: "AcmeKey", type: "text" }] });
    expect(err.code).toBe("AIRLOCK_SDK_SECRET_INVALID");
    expect(err.message).toContain("requiredSecrets[0].key");
  });

  it("refuses a select without choices and choices on a text secret", () => {
    expect(refusal({ requiredSecrets: [{ key: "region", type: "select" }] }).message).toContain(
      "requiredSecrets[0].choices",
    );
    expect(refusal({ requiredSecrets: [{ key: "region", type: "text", choices: ["eu"] }] }).code).toBe(
      "AIRLOCK_SDK_SECRET_INVALID",
    );
  });

  it("refuses a secret declared twice", () => {
    expect(refusal({ requiredSecrets: [{ key: "k" }, { key: "k" }] }).message).toContain("twice");
  });
});

describe("defineTool presentation and annotations", () => {
  it("accepts family as an alias of group", () => {
    const tool = defineTool({
      ...base,
      presentation: { label: "Notes", icon: "note", tone: "info", family: "notes" },
    });
    expect(tool.presentation).toEqual({ label: "Notes", icon: "note", tone: "info", group: "notes" });
  });

  it("refuses a presentation without an icon, with an unknown tone, or contradicting family", () => {
    expect(refusal({ presentation: { label: "Notes" } }).message).toContain("presentation.icon");
    expect(refusal({ presentation: { label: "N", icon: "n", tone: "loud" } }).code).toBe(
      "AIRLOCK_SDK_PRESENTATION_INVALID",
    );
    expect(refusal({ presentation: { label: "N", icon: "n", group: "a", family: "b" } }).message).toContain(
      "presentation.family",
    );
  });

  it("keeps the MCP annotations and refuses a hint that is not boolean or unknown", () => {
    const annotations = {
      title: "Search",
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    };
    expect(defineTool({ ...base, annotations }).annotations).toEqual(annotations);
    expect(refusal({ annotations: { readOnlyHint: "yes" } }).message).toContain("annotations.readOnlyHint");
    expect(refusal({ annotations: { sideEffects: true } }).message).toContain("annotations.sideEffects");
  });
});

describe("defineTool shape", () => {
  it("refuses parameters that are not a Zod object, and unknown fields such as inputSchema", () => {
    expect(refusal({ parameters: z.string() }).message).toContain("parameters");
    expect(refusal({ parameters: { type: "object" } }).message).toContain("parameters");
    expect(refusal({ inputSchema: {} }).message).toContain("inputSchema");
  });

  it("refuses a missing description and a missing execute", () => {
    expect(refusal({ description: " " }).message).toContain("description");
    expect(refusal({ execute: undefined }).message).toContain("execute");
  });

  it("accepts an output schema and examples, and refuses an example without a label", () => {
    const tool = defineTool({
      ...base,
      output: z.object({ hits: z.number() }),
      inputExamples: [{ label: "minimal", input: { query: "hello" } }],
    });
    expect(tool.inputExamples).toEqual([{ label: "minimal", input: { query: "hello" } }]);
    expect(refusal({ inputExamples: [{ input: { query: "x" } }] }).message).toContain(
      "inputExamples[0].label",
    );
  });
});

describe("defineTool longRunning", () => {
  it("is false unless declared, and true when declared", () => {
    expect(defineTool(base).longRunning).toBe(false);
    expect(defineTool({ ...base, longRunning: true }).longRunning).toBe(true);
  });

  it("refuses a longRunning that is not a boolean, naming the field", () => {
    const error = refusal({ longRunning: "yes" });
    expect(error.code).toBe("AIRLOCK_SDK_TOOL_INVALID");
    expect(error.message).toContain("longRunning");
  });
});

describe("the manifest of a long-running tool", () => {
  it("carries longRunning only for a tool that declares it, and parses as a manifest", async () => {
    const { definePlugin } = await import("./define-plugin.ts");
    const { describePlugin } = await import("./build/describe.ts");
    const plugin = definePlugin({
      namespace: "acme-jobs",
      version: "1.0.0",
      engine: "^1.0.0",
      tools: [defineTool({ ...base, name: "crunch", longRunning: true }), defineTool(base)],
    });
    const tools = describePlugin(plugin).tools;
    expect(tools.find((t) => t.name === "crunch")?.longRunning).toBe(true);
    expect(tools.find((t) => t.name === "searchNotes")).not.toHaveProperty("longRunning");
  });
});
