// Stage "validation": the (possibly rewritten) input fits the plugin's limits and its JSON
// Schema, checked on the host. Too large is AIRLOCK_TOOL_INPUT_TOO_LARGE (naming the limit);
// omitted nullable fields are filled with null first (pipeline/omitted-nullables.ts); a schema
// mismatch is AIRLOCK_TOOL_INPUT_INVALID with what to fix.
// Invariants: the executor never sees an input that did not pass here; the compiled schema is
// cached per tool version (pipeline/schema-validation.ts); call.limits is set for the executor.
import { fillOmittedNullables } from "../omitted-nullables.ts";
import { type CallStage, reached, stop } from "./types.ts";

export const validationStage: CallStage = {
  name: "validation",
  enter(call) {
    if (call.host !== undefined) return undefined; // a host tool skips this stage (docs/pipeline.md)
    const { deps, toolName } = call;
    const current = reached(call.current, "the catalogue entry");
    const limits = deps.loader.limitsFor(current.plugin);
    call.limits = limits;
    if (call.inputBytes > limits.maxInputBytes) {
      return stop(
        "AIRLOCK_TOOL_INPUT_TOO_LARGE",
        `Input for ${toolName} is ${call.inputBytes} bytes; the limit is maxInputBytes = ${limits.maxInputBytes} bytes. Send less data.`,
      );
    }
    call.input = fillOmittedNullables(current.tool.inputSchema, call.input) as Record<string, unknown>;
    const checked = deps.validator.check(
      `${current.id}@${current.version}#in`,
      current.tool.inputSchema,
      call.input,
      "input",
    );
    if (checked.ok) return undefined;
    return stop(
      "AIRLOCK_TOOL_INPUT_INVALID",
      `Invalid input for ${toolName}: ${checked.message}. Fix these and call the tool again.`,
    );
  },
};
