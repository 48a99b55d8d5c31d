// Tool input that is JSON but not safe to hand on: a lone UTF-16 surrogate (not Unicode text;
// it would be mangled differently by each reader on the way to the plugin) or one of the keys
// `__proto__`, `constructor`, `prototype` (which reach an object's prototype machinery in some
// readers and used to be dropped silently on the way into the isolate).
// Contract: `inputRefusal(json)` looks at the input's JSON text (JSON.stringify of the input,
// which escapes lone surrogates) and returns the Stop to answer with, or null. It never quotes
// a value of the input, only the offending key.
import { forbiddenKey, hasLoneSurrogate } from "@airlock/sdk/strict-json";
import type { PipelineErrorCode } from "./errors.ts";

export function inputRefusal(
  toolName: string,
  json: string,
): { code: PipelineErrorCode; message: string } | null {
  if (hasLoneSurrogate(json)) {
    return {
      code: "AIRLOCK_TOOL_INPUT_NOT_UNICODE",
      message: `Invalid input for ${toolName}: a string or key holds a lone UTF-16 surrogate. Send Unicode text.`,
    };
  }
  const key = forbiddenKey(json);
  if (key !== null) {
    return {
      code: "AIRLOCK_TOOL_INPUT_KEY_FORBIDDEN",
      message: `Invalid input for ${toolName}: the key "${key}" is not accepted (nor are __proto__, constructor, prototype anywhere in the input). Rename it.`,
    };
  }
  return null;
}
