import { describe, expect, it } from "vitest";
import { assertLevel, normalizeAuditQuery, parseLevel, sanitizeDetails, searchTerms } from "./shared.ts";

describe("store rules shared by both backends", () => {
  it("reads an unknown knowledge level back as none (no access)", () => {
    for (const raw of ["superuser", "", null, 3, "READ"]) expect(parseLevel(raw)).toBe("none");
    for (const level of ["none", "read", "write", "manage"]) expect(parseLevel(level)).toBe(level);
  });

  it("refuses to set a level it does not know with AIRLOCK_STORE_INVALID_INPUT", () => {
    expect(() => assertLevel("owner")).toThrow(
      expect.objectContaining({ code: "AIRLOCK_STORE_INVALID_INPUT" }),
    );
  });

  it("cuts a query into lowercase words, dropping search syntax", () => {
    expect(searchTerms('Quarterly "report" OR NEAR(x*) -- é')).toEqual([
      "quarterly",
      "report",
      "or",
      "near",
      "x",
      "é",
    ]);
    expect(searchTerms("&|!():*")).toEqual([]);
  });

  it("drops every kind of binary value from audit details", () => {
    const details = {
      a: new Uint8Array(2),
      b: new Float64Array(1),
      c: new DataView(new ArrayBuffer(1)),
      d: Buffer.from("x"),
      e: { f: new ArrayBuffer(1), g: "kept" },
      n: 1n,
    };
    expect(sanitizeDetails(details)).toEqual({ e: { g: "kept" }, n: "1" });
  });

  it("refuses malformed audit queries and caps the page size", () => {
    expect(normalizeAuditQuery({ limit: 1_000_000 }).limit).toBe(1000);
    for (const q of [{ limit: 0 }, { limit: 1.5 }, { since: "yesterday-ish" }, { before: Number.NaN }]) {
      expect(() => normalizeAuditQuery(q)).toThrow(
        expect.objectContaining({ code: "AIRLOCK_STORE_INVALID_INPUT" }),
      );
    }
  });
});
