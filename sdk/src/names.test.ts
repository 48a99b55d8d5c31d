import { describe, expect, it } from "vitest";
import {
  NAMESPACE_PATTERN,
  parseToolId,
  parseWireName,
  TOOL_NAME_PATTERN,
  toolId,
  wireName,
} from "./names.ts";

describe("tool names", () => {
  it("maps a canonical id to its wire form and back", () => {
    expect(toolId("notes", "searchNotes")).toBe("notes:searchNotes");
    expect(wireName("notes", "searchNotes")).toBe("notes__searchNotes");
    expect(parseWireName("notes__searchNotes")).toEqual({ namespace: "notes", tool: "searchNotes" });
    expect(parseToolId("my-plugin:mark_done")).toEqual({ namespace: "my-plugin", tool: "mark_done" });
  });

  it("keeps the wire form reversible for snake_case tools: the first __ ends the namespace", () => {
    for (const [ns, tool] of [
      ["weather", "get_weather"],
      ["my-plugin", "mark__done"],
      ["ab", "a_"],
      ["conf", "test_simple_text"],
    ] as const) {
      expect(NAMESPACE_PATTERN.test(ns) && TOOL_NAME_PATTERN.test(tool)).toBe(true);
      expect(parseWireName(wireName(ns, tool))).toEqual({ namespace: ns, tool });
    }
    expect(NAMESPACE_PATTERN.test("my_plugin")).toBe(false);
  });

  it("accepts camelCase and snake_case tool names only", () => {
    for (const ok of ["searchNotes", "get_weather", "echo", "json_schema_2020_12_tool"]) {
      expect(TOOL_NAME_PATTERN.test(ok), ok).toBe(true);
    }
    for (const bad of ["GetWeather", "_x", "get-weather", "get.weather", "2fa", "", `a${"b".repeat(64)}`]) {
      expect(TOOL_NAME_PATTERN.test(bad), bad).toBe(false);
    }
  });

  it("refuses strings that are not ids", () => {
    expect(parseWireName("notes")).toBeUndefined();
    expect(parseToolId(":x")).toBeUndefined();
    expect(parseToolId("notes:")).toBeUndefined();
  });
});
