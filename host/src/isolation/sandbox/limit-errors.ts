// Errors for a call that broke one of its limits: each names the limit and its value, in the
// message (`maxResultBytes = 65536 bytes`) and in details (`{name, limit}`), so an operator or
// an author reading the error knows which knob to turn and from what.
import type { AirlockError } from "@airlock/sdk/errors";
import { type SandboxErrorCode, sandboxError } from "./errors.ts";

export type LimitName = "cpuMs" | "wallMs" | "memoryMb" | "maxInputBytes" | "maxResultBytes";

const UNITS: Record<LimitName, string> = {
  cpuMs: "ms",
  wallMs: "ms",
  memoryMb: "MB",
  maxInputBytes: "bytes",
  maxResultBytes: "bytes",
};

/** `what (name = value unit)`, with details `{name, limit: value, ...extra}`. */
export function limitError(
  code: SandboxErrorCode,
  what: string,
  name: LimitName,
  value: number,
  extra: Record<string, unknown> = {},
): AirlockError {
  return sandboxError(code, `${what} (${name} = ${value} ${UNITS[name]})`, { name, limit: value, ...extra });
}
