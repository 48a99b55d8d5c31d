import { describe, expect, it } from "vitest";
import {
  confusableSkeleton,
  HARNESS_GROUP_PATTERN,
  NAMESPACE_PATTERN,
  namespaceRefusal,
  parseToolId,
  parseWireName,
  RESERVED_NAMESPACES,
  SECRET_KEY_PATTERN,
  TOOL_NAME_PATTERN,
  toolId,
  wireName,
} from "./names.ts";
import { UNREADABLE_NAME_CHARACTER, unreadableCharacter } from "./readable-names.ts";

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

describe("namespace refusals", () => {
  // the definition namespaceRefusal's written-out fold table must agree with: fold every
  // reserved name afresh, in order, and refuse the first that equals or folds alike
  function reference(namespace: string): string | null {
    if (/^[a-z0-9]{2}--/.test(namespace))
      return `"${namespace}" looks like punycode (xn--…) or an IDNA-reserved label`;
    const skeleton = confusableSkeleton(namespace);
    for (const reserved of RESERVED_NAMESPACES) {
      if (namespace === reserved) return `namespace "${namespace}" is reserved`;
      if (confusableSkeleton(reserved) === skeleton)
        return `namespace "${namespace}" looks like the reserved namespace "${reserved}"`;
    }
    return null;
  }
  const lookalikes = (name: string): string[] => [
    name,
    name.replace(/i/g, "1"),
    name.replace(/l/g, "1"),
    name.replace(/o/g, "0"),
    name.replace(/m/g, "rn"),
    name.replace(/s/g, "5"),
    `${name.slice(0, 1)}-${name.slice(1)}`,
    `${name}x`,
  ];

  it("refuses every reserved name and its look-alikes exactly as folding each reserved name would", () => {
    for (const reserved of RESERVED_NAMESPACES) {
      expect(namespaceRefusal(reserved)).toBe(`namespace "${reserved}" is reserved`);
      for (const name of lookalikes(reserved)) expect(namespaceRefusal(name)).toBe(reference(name));
    }
  });

  it("lets ordinary names through and refuses IDNA-reserved labels", () => {
    for (const name of ["notes", "weather", "acme-crm", "github", "s3", "hostile"])
      expect(namespaceRefusal(name)).toBeNull();
    expect(namespaceRefusal("xn--notes")).toMatch(/punycode/);
    expect(namespaceRefusal("a1rlock")).toBe(
      'namespace "a1rlock" looks like the reserved namespace "airlock"',
    );
  });
});

describe("the one rule for names a person reads (readable-names.ts)", () => {
  const unreadable = [
    "\u202E",
    "\u2066",
    "\u200D",
    "\u200B",
    "\uFEFF",
    "\u00AD",
    "\u0007",
    "\ud800",
    "\u2028",
  ];

  it("names the first character a person would not see as itself", () => {
    expect(unreadableCharacter("\u202Etxt.exe")).toBe("U+202E");
    expect(unreadableCharacter("a\u200Db")).toBe("U+200D");
    expect(unreadableCharacter("half \ud800")).toBe("U+D800");
    expect(unreadableCharacter("résumé 履歴書 😀 👩‍💻".replace("\u200D", ""))).toBeNull();
  });

  it("is held by construction by every ASCII name pattern (namespace, tool name, secret key, harness group)", () => {
    for (const c of unreadable) {
      for (const pattern of [
        NAMESPACE_PATTERN,
        TOOL_NAME_PATTERN,
        SECRET_KEY_PATTERN,
        HARNESS_GROUP_PATTERN,
      ]) {
        expect([pattern.source, c, pattern.test(`ab${c}cd`)]).toEqual([pattern.source, c, false]);
      }
      expect(UNREADABLE_NAME_CHARACTER.test(`ab${c}cd`)).toBe(true);
    }
  });
});
