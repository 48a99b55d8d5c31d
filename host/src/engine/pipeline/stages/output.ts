// Stage "output": the executor's result, normalised, matches the tool's output schema (when it
// declares one and the result is not an error: AIRLOCK_TOOL_OUTPUT_INVALID) and fits
// maxResultBytes (AIRLOCK_TOOL_RESULT_TOO_LARGE, naming the limit).
// Invariants: the model never receives a result that failed here; the result is measured as
// the JSON it is sent as.
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
    const resultBytes = Buffer.byteLength(JSON.stringify(result), "utf8");
    if (resultBytes > limits.maxResultBytes) {
      return stop(
        "AIRLOCK_TOOL_RESULT_TOO_LARGE",
        `Tool ${toolName} produced ${resultBytes} bytes; the limit is maxResultBytes = ${limits.maxResultBytes} bytes. Ask for less.`,
      );
    }
    return undefined;
  },
};
