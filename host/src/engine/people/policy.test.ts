// The approval policy's destructive tools' mode: checked, kept, and applied between a tool's own
// override and the agent's default; what counts as destructive (served-tool.ts isDestructive).
import { describe, expect, it } from "vitest";
import { isDestructive } from "../catalogue/served-tool.ts";
import { approvalModeOf, checkPatch } from "./policy.ts";
import { DEFAULT_POLICY } from "./types.ts";

describe("the destructive tools' mode", () => {
  const policy = { ...DEFAULT_POLICY, approval: "auto" as const, destructive: "operator" as const };

  it("applies to destructive tools only, and a tool's own override wins over it", () => {
    expect(approvalModeOf(policy, "notes:deleteNote", true)).toBe("operator");
    expect(approvalModeOf(policy, "notes:saveNote", false)).toBe("auto");
    expect(
      approvalModeOf({ ...policy, tools: { "notes:deleteNote": "client" } }, "notes:deleteNote", true),
    ).toBe("client");
    expect(approvalModeOf({ ...policy, destructive: null }, "notes:deleteNote", true)).toBe("auto");
  });

  it("is checked like the other modes: a mode, or null to follow the default again", () => {
    expect(checkPatch({ destructive: "client" })).toEqual({ destructive: "client" });
    expect(checkPatch({ destructive: null })).toEqual({ destructive: null });
    expect(() => checkPatch({ destructive: "sometimes" })).toThrow(
      expect.objectContaining({ code: "AIRLOCK_POLICY_INVALID" }),
    );
  });

  it("counts a tool destructive by its grants when it declares them, else by its author's word", () => {
    const annotations = { readOnlyHint: false };
    expect(isDestructive({ annotations, uses: { knowledge: "manage" } })).toBe(true);
    expect(
      isDestructive({ annotations, uses: { fetch: [{ host: "api.example", methods: ["DELETE"] }] } }),
    ).toBe(true);
    expect(
      isDestructive({ annotations: { destructiveHint: true }, uses: { knowledge: "write", state: "write" } }),
    ).toBe(false);
    // no grants declared: the author's hint, destructive unless it says false (MCP's default)
    expect(isDestructive({ annotations: { readOnlyHint: false } })).toBe(true);
    expect(isDestructive({ annotations: { readOnlyHint: false, destructiveHint: false } })).toBe(false);
  });
});
