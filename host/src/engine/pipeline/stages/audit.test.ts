// The audit stage on its own: the call row, and the one termination row of a call a limit ended,
// for every code in TERMINATIONS, whichever stage or executor set it.
import { describe, expect, it } from "vitest";
import type { EffectiveLimits } from "../../../contracts/config.ts";
import type { AuditInput } from "../../../state/store/types.ts";
import { auditStage, TERMINATIONS } from "./audit.ts";
import type { Call } from "./types.ts";

const LIMITS: EffectiveLimits = {
  cpuMs: 150,
  wallMs: 5_000,
  memoryMb: 32,
  maxInputBytes: 1_024,
  maxResultBytes: 65_536,
  concurrency: 4,
  capabilityCalls: 200,
};

function ended(code: string | null, extra: Partial<Call> = {}): { call: Call; rows: AuditInput[] } {
  const rows: AuditInput[] = [];
  const call = {
    deps: { auditDurable: async (row: AuditInput) => void rows.push(row), report: () => undefined },
    run: { id: "run_1", agent: "ada", conversationId: "c1" },
    options: {},
    callId: "call_1",
    entry: { version: "1.0.0" },
    auditPlugin: "burner",
    auditTool: "loop",
    subjectProblem: null,
    limits: LIMITS,
    end: {
      result: { content: [{ type: "text", text: "stopped" }], isError: true },
      blocked: false,
      durationMs: 12,
      ...(code === null ? {} : { error: { code, message: "stopped" }, errorCode: code }),
    },
    ...extra,
  } as unknown as Call;
  return { call, rows };
}

describe("the audit stage", () => {
  it.each(Object.entries(TERMINATIONS))(
    "writes one termination row for %s, naming %s",
    async (code, name) => {
      const { call, rows } = ended(code);
      await auditStage.leave?.(call);
      expect(rows.map((r) => [r.kind, r.action, r.error])).toEqual([
        ["tool", "call.terminated", code],
        ["tool", "call", code],
      ]);
      const limit = name === "timers" ? 1000 : LIMITS[name];
      expect(rows[0]).toMatchObject({
        plugin: "burner",
        tool: "loop",
        success: false,
        details: { runId: "run_1", callId: "call_1", name, limit },
      });
    },
  );

  it("names the task's own wall deadline when the call ran under one", async () => {
    const { call, rows } = ended("AIRLOCK_TOOL_TIMEOUT", {
      options: { wallMs: 90_000, parentCallId: "call_0" },
    });
    await auditStage.leave?.(call);
    expect(rows[0]?.details).toEqual({
      runId: "run_1",
      callId: "call_1",
      name: "wallMs",
      limit: 90_000,
      parentCallId: "call_0",
    });
  });

  it("writes the call row alone for a call that ended well, failed otherwise, or never reached its limits", async () => {
    for (const [code, extra] of [
      [null, {}],
      ["AIRLOCK_SANDBOX_TOOL_THREW", {}],
      ["AIRLOCK_TOOL_DISABLED", { limits: undefined }],
      ["AIRLOCK_SANDBOX_CPU_LIMIT", { limits: undefined }],
    ] as const) {
      const { call, rows } = ended(code, extra as Partial<Call>);
      await auditStage.leave?.(call);
      expect(rows.map((r) => r.action)).toEqual(["call"]);
    }
  });
});
