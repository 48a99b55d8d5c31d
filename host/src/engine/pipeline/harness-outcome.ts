// The end of a harness tool's call, for the tools the host answers itself rather than a plugin
// (code mode's search_tools and run_code, the skill tools): the tool.completed or tool.failed
// event, then the outcome the run returns. One place, so every harness tool reports alike.
// Invariants: an outcome with an errorCode raises tool.failed (its text, cut to 500 characters,
// as the message) and carries the code; one without raises tool.completed; neither is blocked.
import type { ToolResult } from "@airlock/sdk";
import type { ToolCallOutcome } from "../../contracts/host.ts";
import type { EventBus } from "./events.ts";

export interface HarnessCall {
  runId: string;
  callId: string;
  agent: string;
  toolName: string;
}

export function harnessOutcome(
  events: EventBus,
  call: HarnessCall,
  report: { result: ToolResult; errorCode?: string },
  durationMs: number,
): ToolCallOutcome {
  if (report.errorCode === undefined) {
    events.emit("tool.completed", { ...call, isError: false, durationMs });
  } else {
    const text = report.result.content.map((p) => (p.type === "text" ? p.text : "")).join("");
    events.emit("tool.failed", {
      ...call,
      error: { code: report.errorCode, message: text.slice(0, 500) },
      blocked: false,
      durationMs,
    });
  }
  const outcome: ToolCallOutcome = {
    callId: call.callId,
    toolName: call.toolName,
    result: report.result,
    blocked: false,
    durationMs,
  };
  if (report.errorCode !== undefined) outcome.errorCode = report.errorCode;
  return outcome;
}
