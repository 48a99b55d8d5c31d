import { describe, expect, it } from "vitest";
import { parseToolId, parseWireName, toolId, wireName } from "./names.ts";

describe("tool names", () => {
  it("maps a canonical id to its wire form and back", () => {
    expect(toolId("notes", "searchNotes")).toBe("notes:searchNotes");
    expect(wireName("notes", "searchNotes")).toBe("notes__searchNotes");
    expect(parseWireName("notes__searchNotes")).toEqual({ namespace: "notes", tool: "searchNotes" });
    expect(parseToolId("my-plugin:mark_done")).toEqual({ namespace: "my-plugin", tool: "mark_done" });
  });

  it("refuses strings that are not ids", () => {
    expect(parseWireName("notes")).toBeUndefined();
    expect(parseToolId(":x")).toBeUndefined();
    expect(parseToolId("notes:")).toBeUndefined();
  });
});
