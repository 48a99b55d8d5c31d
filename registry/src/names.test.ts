import { describe, expect, it } from "vitest";
import { checkNewName, confusableSkeleton } from "./names.ts";

const codeOf = (fn: () => void): string | undefined => {
  try {
    fn();
    return undefined;
  } catch (err) {
    return (err as { code?: string }).code;
  }
};

describe("registry name policy", () => {
  it("accepts a fresh, plain namespace", () => {
    expect(codeOf(() => checkNewName("weather", ["payments"]))).toBeUndefined();
  });

  it("refuses Cyrillic, Greek, fullwidth and zero-width characters as look-alikes", () => {
    for (const name of ["p\u0430yments", "\u03bfpen", "ｐayments", "pay\u200bments"]) {
      expect(codeOf(() => checkNewName(name, []))).toBe("AIRLOCK_REGISTRY_NAME_LOOKALIKE");
    }
  });

  it("refuses ASCII names that fold onto an existing name", () => {
    expect(confusableSkeleton("pay-rnents")).toBe(confusableSkeleton("payments"));
    for (const name of ["pay-ments", "payrnents", "paym3nts"]) {
      const code = codeOf(() => checkNewName(name, ["payments"]));
      if (name === "paym3nts") expect(code).toBeUndefined();
      else expect(code).toBe("AIRLOCK_REGISTRY_NAME_LOOKALIKE");
    }
    expect(codeOf(() => checkNewName("g00gle", ["google"]))).toBe("AIRLOCK_REGISTRY_NAME_LOOKALIKE");
    expect(codeOf(() => checkNewName("wa1let", ["wallet"]))).toBe("AIRLOCK_REGISTRY_NAME_LOOKALIKE");
  });

  it("refuses reserved namespaces and their look-alikes", () => {
    expect(codeOf(() => checkNewName("airlock", []))).toBe("AIRLOCK_REGISTRY_NAME_RESERVED");
    expect(codeOf(() => checkNewName("air-lock", []))).toBe("AIRLOCK_REGISTRY_NAME_RESERVED");
    expect(codeOf(() => checkNewName("c0re", []))).toBe("AIRLOCK_REGISTRY_NAME_RESERVED");
  });

  it("refuses names outside the namespace pattern", () => {
    expect(codeOf(() => checkNewName("Weather", []))).toBe("AIRLOCK_REGISTRY_NAME_INVALID");
    expect(codeOf(() => checkNewName("a", []))).toBe("AIRLOCK_REGISTRY_NAME_INVALID");
    expect(codeOf(() => checkNewName("we_ather", []))).toBe("AIRLOCK_REGISTRY_NAME_INVALID");
  });
});
