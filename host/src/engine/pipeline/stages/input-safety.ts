// Stage "input-safety": the input must be a plain JSON object, safe to hand on. It is copied
// as plain JSON (what crosses into the sandbox anyway; a cycle or a BigInt is refused), must
// be an object (AIRLOCK_TOOL_INPUT_INVALID), and must hold no lone surrogate or prototype key
// (pipeline/input-safety.ts: AIRLOCK_TOOL_INPUT_NOT_UNICODE, AIRLOCK_TOOL_INPUT_KEY_FORBIDDEN).
// Invariants: until this stage passes, call.input stays {} (hooks and audit see nothing of a
// refused input); after it, call.input is the copy and call.inputBytes its UTF-8 size.
import { inputRefusal } from "../input-safety.ts";
import { type CallStage, stop } from "./types.ts";

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A plain-JSON copy and its UTF-8 size; undefined when not serialisable. */
export function plainJson(value: unknown): { value: unknown; bytes: number; text: string } | undefined {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch {
    return undefined; // a cycle or a BigInt: not JSON, the caller refuses the input
  }
  return text === undefined
    ? undefined
    : { value: JSON.parse(text), bytes: Buffer.byteLength(text, "utf8"), text };
}

export const inputSafetyStage: CallStage = {
  name: "input-safety",
  enter(call) {
    const plain = plainJson(call.rawInput ?? {});
    if (plain === undefined || !isPlainObject(plain.value)) {
      return stop(
        "AIRLOCK_TOOL_INPUT_INVALID",
        `Invalid input for ${call.toolName}: input: expected a JSON object`,
      );
    }
    const unsafe = inputRefusal(call.toolName, plain.text);
    if (unsafe !== null) return stop(unsafe.code, unsafe.message);
    call.input = plain.value;
    call.inputBytes = plain.bytes;
    return undefined;
  },
};
