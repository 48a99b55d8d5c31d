// Stage "output": the executor's result, normalised, matches the tool's output schema (when it
// declares one and the result is not an error: AIRLOCK_TOOL_OUTPUT_INVALID) and fits
// maxResultBytes (AIRLOCK_TOOL_RESULT_TOO_LARGE, naming the limit).
// Invariants: the model never receives a result that failed here; the result is measured as
// the JSON it is sent as, its structured content counted once: the text part that only mirrors
// it (the SDK's normalisation writes a plain object as structuredContent and as its JSON text)
// is not counted again, so a tool's data measures what the sandbox measured (docs/sandbox.md).
import type { ToolResult } from "@airlock/sdk";
import { type CallStage, reached, stop } from "./types.ts";

export const outputStage: CallStage = {
  name: "output",
  enter(call) {
    if (call.host !== undefined) return undefined; // a host tool skips this stage (docs/pipeline.md)
    const { deps, toolName } = call;
    const current = reached(call.current, "the catalogue entry");
    const limits = reached(call.limits, "the limits");
    const result = reached(call.result, "the result");
    if (current.tool.outputSchema !== undefined && result.isError !== true) {
      const out = deps.validator.check(
        `${current.id}@${current.version}#out`,
        current.tool.outputSchema,
        result.structuredContent,
        "output",
      );
      if (!out.ok) {
        return stop(
          "AIRLOCK_TOOL_OUTPUT_INVALID",
          `Tool ${toolName} returned a result that does not match its output schema (${out.message}).`,
        );
      }
    }
    const resultBytes = measuredBytes(result);
    if (resultBytes > limits.maxResultBytes) {
      return stop(
        "AIRLOCK_TOOL_RESULT_TOO_LARGE",
        `Tool ${toolName} produced ${resultBytes} bytes; the limit is maxResultBytes = ${limits.maxResultBytes} bytes. Ask for less.`,
      );
    }
    return undefined;
  },
};

/** The UTF-8 bytes of the result's JSON, its structured content and that content's text mirror once. */
function measuredBytes(result: ToolResult): number {
  if (result.structuredContent !== undefined) {
    const structured = JSON.stringify(result.structuredContent);
    const mirror = result.content.findIndex((p) => p.type === "text" && p.text === structured);
    if (mirror !== -1) {
      const content = result.content.filter((_, i) => i !== mirror);
      return Buffer.byteLength(JSON.stringify({ ...result, content }), "utf8");
    }
  }
  return Buffer.byteLength(JSON.stringify(result), "utf8");
}
