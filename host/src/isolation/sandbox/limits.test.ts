// resolveLimits: operator ceiling ∧ manifest request, defaults, floors and malformed values.
import { describe, expect, it } from "vitest";
import { DEFAULT_LIMITS, MIN_MEMORY_MB, resolveLimits } from "./limits.ts";

describe("resolveLimits", () => {
  it("grants the defaults when neither the operator nor the manifest says anything", () => {
    expect(resolveLimits()).toEqual(DEFAULT_LIMITS);
  });

  it("lets a manifest ask for less but never more than the operator's ceiling", () => {
    const limits = resolveLimits(
      { cpuMs: 1000, memoryMb: 64 },
      { cpuMs: 500, memoryMb: 512, concurrency: 1 },
    );
    expect(limits).toMatchObject({ cpuMs: 500, memoryMb: 64, concurrency: 1, wallMs: DEFAULT_LIMITS.wallMs });
  });

  it("keeps memory at isolated-vm's floor and CPU time within wall time", () => {
    expect(resolveLimits({}, { memoryMb: 1 }).memoryMb).toBe(MIN_MEMORY_MB);
    expect(resolveLimits({ wallMs: 300 }, {}).cpuMs).toBe(300);
  });

  it("refuses a malformed ceiling or request naming the limit", () => {
    expect(() => resolveLimits({ cpuMs: 0 })).toThrow(
      expect.objectContaining({ code: "AIRLOCK_SANDBOX_LIMITS_INVALID", details: { limit: "cpuMs" } }),
    );
    expect(() => resolveLimits({}, { wallMs: 1.5 })).toThrow(
      expect.objectContaining({ code: "AIRLOCK_SANDBOX_LIMITS_INVALID" }),
    );
  });
});
